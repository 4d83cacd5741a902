from __future__ import annotations

import httpx

from tests.conftest import Tenants


async def test_upload_then_windowed_read(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    response = await client.post(
        "/v1/files",
        headers=alice.headers,
        files={"file": ("notes.txt", "Grüezi mitenand".encode())},
    )
    assert response.status_code == 201, response.text
    file_id = response.json()["id"]
    window = await client.get(
        f"/v1/files/{file_id}/content", params={"offset": 2, "limit": 4}, headers=alice.headers
    )
    assert window.json() == {
        "content": "üezi",
        "offset": 2,
        "limit": 4,
        "total_length": 15,
        "next_offset": 6,
    }

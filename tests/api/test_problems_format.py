"""Every error the API returns is application/problem+json with a specific detail."""

from __future__ import annotations

import httpx

from tests.api.files_helpers import assert_problem
from tests.conftest import Tenants


async def test_framework_errors_are_problems_too(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    assert_problem(await client.get("/v1/nothing-here", headers=alice.headers), 404)
    assert_problem(await client.put("/v1/files", headers=alice.headers), 405)

    broken = await client.patch(
        "/v1/files/some-id",
        content=b"{not json",
        headers={**alice.headers, "Content-Type": "application/json"},
    )
    assert_problem(broken, 422)

    missing_file = await client.post("/v1/files", data={"name": "x.txt"}, headers=alice.headers)
    body = assert_problem(missing_file, 422, "file")
    assert {"field": "file", "message": body["errors"][0]["message"]} in body["errors"]

    wrong_type = await client.post("/v1/folders", json={"name": 5}, headers=alice.headers)
    assert_problem(wrong_type, 422, "name")


async def test_domain_errors_carry_title_and_specific_detail(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    body = assert_problem(
        await client.get("/v1/folders", params={"parent_id": "f-1"}, headers=alice.headers),
        404,
        "folder f-1 not found",
    )
    assert (body["type"], body["title"]) == ("about:blank", "Not found")
    assert "www-authenticate" not in {
        key.lower() for key in (await client.get("/v1/files/x", headers=alice.headers)).headers
    }

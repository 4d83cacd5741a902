"""/v1/folders: a member's own tree — create, rename, move, and (recursive) delete."""

from __future__ import annotations

import httpx

from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem, file_count, stored_blobs, upload_ok
from tests.conftest import Member, Tenants


async def _create(
    client: httpx.AsyncClient, member: Member, name: str, parent_id: str | None = None
) -> str:
    response = await client.post(
        "/v1/folders", json={"name": name, "parent_id": parent_id}, headers=member.headers
    )
    assert response.status_code == 201, response.text
    assert response.json()["parent_id"] == parent_id
    return response.json()["id"]


async def _children(
    client: httpx.AsyncClient, member: Member, parent_id: str | None = None
) -> list[str]:
    params = {"parent_id": parent_id} if parent_id else {}
    response = await client.get("/v1/folders", params=params, headers=member.headers)
    assert response.status_code == 200, response.text
    return [folder["name"] for folder in response.json()]


async def test_create_rename_and_move(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    projects = await _create(client, alice, "Projects")
    alpha = await _create(client, alice, "Alpha", projects)
    await _create(client, alice, "Beta", projects)
    archive = await _create(client, alice, "Archiv 2024 – älter")
    assert await _children(client, alice) == ["Archiv 2024 – älter", "Projects"]
    assert await _children(client, alice, projects) == ["Alpha", "Beta"]

    assert_problem(
        await client.post(
            "/v1/folders", json={"name": "Alpha", "parent_id": projects}, headers=alice.headers
        ),
        409,
        "Alpha",
    )
    # The same name elsewhere is fine.
    await _create(client, alice, "Alpha", archive)

    renamed = await client.patch(
        f"/v1/folders/{alpha}", json={"name": "Alpha 2"}, headers=alice.headers
    )
    assert renamed.json()["name"] == "Alpha 2"
    assert_problem(
        await client.patch(f"/v1/folders/{alpha}", json={"name": "Beta"}, headers=alice.headers),
        409,
    )
    moved = await client.patch(
        f"/v1/folders/{alpha}", json={"parent_id": archive}, headers=alice.headers
    )
    assert moved.json()["parent_id"] == archive
    assert await _children(client, alice, archive) == ["Alpha", "Alpha 2"]
    top = await client.patch(
        f"/v1/folders/{alpha}", json={"parent_id": None}, headers=alice.headers
    )
    assert top.json()["parent_id"] is None
    assert await _children(client, alice) == ["Alpha 2", "Archiv 2024 – älter", "Projects"]
    # Moving onto a taken name changes nothing.
    assert_problem(
        await client.patch(
            f"/v1/folders/{alpha}",
            json={"parent_id": archive, "name": "Alpha"},
            headers=alice.headers,
        ),
        409,
    )
    assert await _children(client, alice, archive) == ["Alpha"]
    assert await _children(client, alice) == ["Alpha 2", "Archiv 2024 – älter", "Projects"]


async def test_a_folder_cannot_move_into_itself_or_below(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    top = await _create(client, alice, "Top")
    middle = await _create(client, alice, "Middle", top)
    bottom = await _create(client, alice, "Bottom", middle)
    for target in (top, middle, bottom):
        response = await client.patch(
            f"/v1/folders/{top}", json={"parent_id": target}, headers=alice.headers
        )
        assert_problem(response, 422, "itself")
    assert await _children(client, alice) == ["Top"]
    assert await _children(client, alice, middle) == ["Bottom"]
    # Moving a subfolder up is fine.
    up = await client.patch(f"/v1/folders/{bottom}", json={"parent_id": top}, headers=alice.headers)
    assert up.status_code == 200 and await _children(client, alice, top) == ["Bottom", "Middle"]


async def test_delete_needs_recursive_for_non_empty_folders(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    outside = await upload_ok(client, alice, "outside.txt", "shared bytes")
    tree = await _create(client, alice, "Tree")
    branch = await _create(client, alice, "Branch", tree)
    empty = await _create(client, alice, "Empty")
    in_tree = await upload_ok(client, alice, "leaf.txt", "only in the tree", folder_id=branch)
    await upload_ok(client, alice, "same.txt", "shared bytes", folder_id=tree)

    assert_problem(
        await client.delete(f"/v1/folders/{tree}", headers=alice.headers), 409, "recursive"
    )
    assert_problem(
        await client.delete(
            f"/v1/folders/{tree}", params={"recursive": False}, headers=alice.headers
        ),
        409,
    )
    # A folder holding only a subfolder is not empty either.
    holder = await _create(client, alice, "Holder")
    await _create(client, alice, "Child", holder)
    assert_problem(await client.delete(f"/v1/folders/{holder}", headers=alice.headers), 409)
    assert await file_count(runtime) == 3

    assert (await client.delete(f"/v1/folders/{empty}", headers=alice.headers)).status_code == 204
    gone = await client.delete(
        f"/v1/folders/{tree}", params={"recursive": True}, headers=alice.headers
    )
    assert gone.status_code == 204, gone.text
    assert await _children(client, alice) == ["Holder"]
    assert_problem(
        await client.get("/v1/folders", params={"parent_id": branch}, headers=alice.headers), 404
    )
    assert_problem(await client.get(f"/v1/files/{in_tree['id']}", headers=alice.headers), 404)
    assert await file_count(runtime) == 1
    # The tree's own bytes are gone; bytes still used outside it stay.
    assert not runtime.blobs.path_for(in_tree["sha256"]).exists()
    assert stored_blobs(runtime) == [runtime.blobs.path_for(outside["sha256"])]
    download = await client.get(f"/v1/files/{outside['id']}/download", headers=alice.headers)
    assert download.content == b"shared bytes"

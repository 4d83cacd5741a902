"""Rename, move, tag, copy and delete on /v1/files, and when blob bytes go away."""

from __future__ import annotations

import httpx

from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem, file_count, stored_blobs, upload_ok
from tests.conftest import Tenants


async def _folder(client: httpx.AsyncClient, headers: dict[str, str], name: str) -> str:
    response = await client.post("/v1/folders", json={"name": name}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def test_rename_move_and_tag(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    folder_id = await _folder(client, alice.headers, "Reports")
    stored = await upload_ok(client, alice, "draft.txt", "text", tags="a")
    url = f"/v1/files/{stored['id']}"

    changed = await client.patch(
        url,
        json={"name": "Bericht Q1 – final.txt", "folder_id": folder_id, "tags": [" b ", "c", "b"]},
        headers=alice.headers,
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body["name"], body["folder_id"], body["tags"]) == (
        "Bericht Q1 – final.txt",
        folder_id,
        ["b", "c"],
    )
    assert body["id"] == stored["id"] and body["sha256"] == stored["sha256"]

    back = await client.patch(url, json={"folder_id": None}, headers=alice.headers)
    assert back.json()["folder_id"] is None
    assert back.json()["name"] == "Bericht Q1 – final.txt"
    cleared = await client.patch(url, json={"tags": []}, headers=alice.headers)
    assert cleared.json()["tags"] == []
    assert cleared.json()["updated_at"] > back.json()["updated_at"], "a tag change is a change"
    assert_problem(await client.patch(url, json={"name": "../x"}, headers=alice.headers), 422, "..")
    assert_problem(
        await client.patch(url, json={"folder_id": "no-such-folder"}, headers=alice.headers), 404
    )


async def test_rename_or_move_onto_a_taken_name_is_409_and_changes_nothing(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    folder_id = await _folder(client, alice.headers, "Archive")
    first = await upload_ok(client, alice, "a.txt", "A", tags="keep")
    await upload_ok(client, alice, "b.txt", "B")
    await upload_ok(client, alice, "a.txt", "archived A", folder_id=folder_id)
    url = f"/v1/files/{first['id']}"

    assert_problem(
        await client.patch(url, json={"name": "b.txt"}, headers=alice.headers), 409, "b.txt"
    )
    assert_problem(
        await client.patch(url, json={"folder_id": folder_id}, headers=alice.headers), 409, "a.txt"
    )
    # A request that combines a valid move with a conflicting rename is applied not at all.
    assert_problem(
        await client.patch(
            url,
            json={"folder_id": folder_id, "name": "a.txt", "tags": ["new"]},
            headers=alice.headers,
        ),
        409,
    )
    # The move alone would succeed here; the rename after it conflicts.
    other_folder = await _folder(client, alice.headers, "Other")
    await upload_ok(client, alice, "c.txt", "C", folder_id=other_folder)
    assert_problem(
        await client.patch(
            url,
            json={"folder_id": other_folder, "name": "c.txt", "tags": ["new"]},
            headers=alice.headers,
        ),
        409,
    )
    current = (await client.get(url, headers=alice.headers)).json()
    assert current == first


async def test_copy_is_independent_of_its_source(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    folder_id = await _folder(client, alice.headers, "Copies")
    source = await upload_ok(
        client, alice, "orig.txt", "original bytes", tags="t1,t2", neutralize="true"
    )

    same_folder = await client.post(
        f"/v1/files/{source['id']}/copy", json={}, headers=alice.headers
    )
    assert same_folder.status_code == 201, same_folder.text
    copy = same_folder.json()
    assert copy["name"] == "orig (2).txt" and copy["folder_id"] is None
    assert copy["tags"] == ["t1", "t2"] and copy["neutralize"] is True
    assert copy["sha256"] == source["sha256"]
    elsewhere = await client.post(
        f"/v1/files/{source['id']}/copy",
        json={"folder_id": folder_id, "name": "kopie.txt"},
        headers=alice.headers,
    )
    assert (elsewhere.json()["name"], elsewhere.json()["folder_id"]) == ("kopie.txt", folder_id)
    # Equal bytes are stored once.
    assert len(stored_blobs(runtime)) == 1

    # Changing the copy leaves the source alone, and deleting the source keeps the copy's bytes.
    await client.patch(f"/v1/files/{copy['id']}", json={"tags": ["other"]}, headers=alice.headers)
    assert (await client.get(f"/v1/files/{source['id']}", headers=alice.headers)).json()[
        "tags"
    ] == ["t1", "t2"]
    assert (
        await client.delete(f"/v1/files/{source['id']}", headers=alice.headers)
    ).status_code == 204
    download = await client.get(f"/v1/files/{copy['id']}/download", headers=alice.headers)
    assert download.status_code == 200 and download.content == b"original bytes"
    assert len(stored_blobs(runtime)) == 1


async def test_delete_removes_the_blob_only_when_unreferenced(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    bob = await tenants.member()
    first = await upload_ok(client, alice, "one.txt", "same bytes")
    second = await upload_ok(client, bob, "two.txt", "same bytes")
    other = await upload_ok(client, alice, "three.txt", "different bytes")
    assert first["sha256"] == second["sha256"]
    blob = runtime.blobs.path_for(first["sha256"])
    assert blob.is_file() and len(stored_blobs(runtime)) == 2

    assert (
        await client.delete(f"/v1/files/{first['id']}", headers=alice.headers)
    ).status_code == 204
    assert blob.is_file(), "bob's file still uses these bytes"
    assert_problem(await client.get(f"/v1/files/{first['id']}", headers=alice.headers), 404)
    assert_problem(await client.delete(f"/v1/files/{first['id']}", headers=alice.headers), 404)

    assert (
        await client.delete(f"/v1/files/{second['id']}", headers=bob.headers)
    ).status_code == 204
    assert not blob.exists()
    assert stored_blobs(runtime) == [runtime.blobs.path_for(other["sha256"])]
    assert await file_count(runtime) == 1


async def test_replace_upload_releases_the_old_blob(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    first = await upload_ok(client, alice, "doc.txt", "version 1")
    second = await upload_ok(client, alice, "doc.txt", "version 2", on_conflict="replace")
    assert second["id"] == first["id"] and second["sha256"] != first["sha256"]
    assert not runtime.blobs.path_for(first["sha256"]).exists()
    download = await client.get(f"/v1/files/{first['id']}/download", headers=alice.headers)
    assert download.content == b"version 2"

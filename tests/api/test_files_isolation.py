"""Tenant isolation and roles on /v1/files and /v1/folders (X2), on both backends.

Anything a caller may not see answers 404 exactly like an id that never existed; anything they
may see but not change answers 403.
"""

from __future__ import annotations

import uuid

import httpx

from agentur.accounts.directory import create_feature_instance
from agentur.context import Role
from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem, file_count, stored_blobs, upload, upload_ok
from tests.conftest import Member, Tenants


async def _every_access(
    client: httpx.AsyncClient, member: Member, file_id: str, folder_id: str | None = None
) -> dict[str, httpx.Response]:
    """Every read and write the files API offers, aimed at `file_id` as `member`."""
    headers = member.headers
    base = f"/v1/files/{file_id}"
    return {
        "metadata": await client.get(base, headers=headers),
        "download": await client.get(f"{base}/download", headers=headers),
        "content": await client.get(f"{base}/content", headers=headers),
        "rename": await client.patch(base, json={"name": "stolen.txt"}, headers=headers),
        "move": await client.patch(base, json={"folder_id": folder_id}, headers=headers),
        "tag": await client.patch(base, json={"tags": ["stolen"]}, headers=headers),
        "copy": await client.post(f"{base}/copy", json={}, headers=headers),
        "delete": await client.delete(base, headers=headers),
    }


def _assert_all_not_found(responses: dict[str, httpx.Response], file_id: str) -> None:
    for action, response in responses.items():
        assert response.status_code == 404, (action, response.text)
        # Same message as for an id that does not exist: nothing reveals the file is there.
        assert response.json()["detail"] == f"file {file_id} not found", action


async def _assert_unchanged(
    client: httpx.AsyncClient, owner: Member, original: dict[str, object]
) -> None:
    current = await client.get(f"/v1/files/{original['id']}", headers=owner.headers)
    assert current.status_code == 200
    assert current.json() == original
    download = await client.get(f"/v1/files/{original['id']}/download", headers=owner.headers)
    assert download.status_code == 200 and download.content


async def test_other_mandate_sees_and_changes_nothing(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("globex", Role.admin)
    personal = await upload_ok(client, alice, "salary.txt", "secret", tags="hr")
    shared = await upload_ok(client, alice, "handbook.txt", "for acme", scope="mandate")
    mallory_folder = (
        await client.post("/v1/folders", json={"name": "loot"}, headers=mallory.headers)
    ).json()

    listing = await client.get("/v1/files", headers=mallory.headers)
    assert listing.json()["items"] == [] and listing.json()["total"] == 0
    for scope in ("personal", "mandate"):
        listed = await client.get("/v1/files", params={"scope": scope}, headers=mallory.headers)
        assert listed.json()["total"] == 0
    searched = await client.get("/v1/files", params={"search": "salary"}, headers=mallory.headers)
    assert searched.json()["total"] == 0

    for original in (personal, shared):
        responses = await _every_access(client, mallory, original["id"], mallory_folder["id"])
        _assert_all_not_found(responses, original["id"])
        await _assert_unchanged(client, alice, original)

    # Guessing ids looks exactly the same as asking for real foreign ones.
    guessed = str(uuid.uuid4())
    _assert_all_not_found(await _every_access(client, mallory, guessed), guessed)
    assert await file_count(runtime) == 2
    assert len(stored_blobs(runtime)) == 2


async def test_colleague_personal_files_are_invisible_mandate_files_readable(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("acme")
    personal = await upload_ok(client, alice, "diary.txt", "dear diary")
    shared = await upload_ok(client, alice, "handbook.txt", "Willkommen bei Acme", scope="mandate")

    _assert_all_not_found(await _every_access(client, bob, personal["id"]), personal["id"])
    await _assert_unchanged(client, alice, personal)

    listing = (await client.get("/v1/files", headers=bob.headers)).json()
    assert [item["id"] for item in listing["items"]] == [shared["id"]]
    assert (await client.get(f"/v1/files/{shared['id']}", headers=bob.headers)).status_code == 200
    download = await client.get(f"/v1/files/{shared['id']}/download", headers=bob.headers)
    assert download.content == b"Willkommen bei Acme"
    content = await client.get(f"/v1/files/{shared['id']}/content", headers=bob.headers)
    assert content.json()["content"] == "Willkommen bei Acme"

    # A member may read a colleague's mandate file but not change it.
    base = f"/v1/files/{shared['id']}"
    assert_problem(await client.patch(base, json={"name": "x.txt"}, headers=bob.headers), 403)
    assert_problem(await client.patch(base, json={"tags": ["x"]}, headers=bob.headers), 403)
    assert_problem(await client.patch(base, json={"folder_id": None}, headers=bob.headers), 403)
    assert_problem(await client.delete(base, headers=bob.headers), 403)
    await _assert_unchanged(client, alice, shared)

    # Copying is reading: bob gets his own, independent file.
    copy = await client.post(f"{base}/copy", json={}, headers=bob.headers)
    assert copy.status_code == 201, copy.text
    assert copy.json()["owner_id"] == bob.user_id and copy.json()["id"] != shared["id"]


async def test_viewer_is_read_only(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    viewer = await tenants.member("acme", Role.viewer)
    shared = await upload_ok(client, alice, "plan.txt", "the plan", scope="mandate")
    base = f"/v1/files/{shared['id']}"

    assert (await client.get(base, headers=viewer.headers)).status_code == 200
    assert (await client.get(f"{base}/content", headers=viewer.headers)).status_code == 200
    assert_problem(await upload(client, viewer, "mine.txt", "x"), 403, "read-only")
    assert_problem(await client.patch(base, json={"name": "y.txt"}, headers=viewer.headers), 403)
    assert_problem(await client.patch(base, json={"tags": ["y"]}, headers=viewer.headers), 403)
    assert_problem(await client.post(f"{base}/copy", json={}, headers=viewer.headers), 403)
    assert_problem(await client.delete(base, headers=viewer.headers), 403)
    assert_problem(
        await client.post("/v1/folders", json={"name": "mine"}, headers=viewer.headers), 403
    )
    await _assert_unchanged(client, alice, shared)
    assert await file_count(runtime) == 1
    assert len(stored_blobs(runtime)) == 1


async def test_mandate_admin_changes_shared_files_but_not_personal_ones(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    admin = await tenants.member("acme", Role.admin)
    personal = await upload_ok(client, alice, "private.txt", "mine")
    shared = await upload_ok(client, alice, "policy.txt", "v1", scope="mandate")
    base = f"/v1/files/{shared['id']}"

    renamed = await client.patch(base, json={"name": "policy-2024.txt"}, headers=admin.headers)
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "policy-2024.txt"
    tagged = await client.patch(base, json={"tags": ["legal"]}, headers=admin.headers)
    assert tagged.json()["tags"] == ["legal"]
    # Folders are per user, so moving stays with the owner.
    assert_problem(await client.patch(base, json={"folder_id": None}, headers=admin.headers), 403)

    _assert_all_not_found(await _every_access(client, admin, personal["id"]), personal["id"])
    await _assert_unchanged(client, alice, personal)

    assert (await client.delete(base, headers=admin.headers)).status_code == 204
    assert (await client.get(base, headers=alice.headers)).status_code == 404
    assert await file_count(runtime) == 1


async def test_feature_instance_scope_needs_the_matching_header(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("acme")
    carol = await tenants.member("globex")
    async with runtime.database.transaction() as session:
        chat = await create_feature_instance(
            session, mandate_id=alice.mandate_id, feature_code="chat"
        )
        other = await create_feature_instance(
            session, mandate_id=alice.mandate_id, feature_code="chat"
        )
        foreign = await create_feature_instance(
            session, mandate_id=carol.mandate_id, feature_code="chat"
        )
    in_chat = {"X-Feature-Instance": chat.id}

    assert_problem(
        await upload(client, alice, "notes.txt", "x", scope="feature_instance"),
        422,
        "X-Feature-Instance",
    )
    stored = await upload_ok(
        client, alice, "notes.txt", "team notes", scope="feature_instance", headers=in_chat
    )
    assert stored["feature_instance_id"] == chat.id
    url = f"/v1/files/{stored['id']}"

    seen = await client.get(url, headers={**bob.headers, **in_chat})
    assert seen.status_code == 200
    listing = await client.get("/v1/files", headers={**bob.headers, **in_chat})
    assert [item["id"] for item in listing.json()["items"]] == [stored["id"]]
    assert (await client.get(url, headers=bob.headers)).status_code == 404
    other_headers = {**bob.headers, "X-Feature-Instance": other.id}
    assert (await client.get(url, headers=other_headers)).status_code == 404
    # The listing's statement is built once per filter shape: the instance is its parameter.
    assert (await client.get("/v1/files", headers=other_headers)).json()["total"] == 0
    assert (await client.get("/v1/files", headers=bob.headers)).json()["total"] == 0

    # A feature instance of another mandate, or none at all, is refused outright.
    for instance_id in (chat.id, str(uuid.uuid4())):
        refused = await client.get(
            url, headers={**carol.headers, "X-Feature-Instance": instance_id}
        )
        assert_problem(refused, 403, "X-Feature-Instance")
    refused = await client.get(
        "/v1/me", headers={**alice.headers, "X-Feature-Instance": foreign.id}
    )
    assert_problem(refused, 403)


async def test_colleague_folders_are_invisible(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("acme")
    carol = await tenants.member("globex")
    folder = (
        await client.post("/v1/folders", json={"name": "Projects"}, headers=alice.headers)
    ).json()
    await upload_ok(client, alice, "inside.txt", "x", folder_id=folder["id"], scope="mandate")
    url = f"/v1/folders/{folder['id']}"

    for stranger in (bob, carol):
        assert (await client.get("/v1/folders", headers=stranger.headers)).json() == []
        listed = await client.get(
            "/v1/folders", params={"parent_id": folder["id"]}, headers=stranger.headers
        )
        assert_problem(listed, 404)
        assert_problem(
            await client.patch(url, json={"name": "Mine"}, headers=stranger.headers), 404
        )
        assert_problem(
            await client.delete(url, params={"recursive": True}, headers=stranger.headers), 404
        )
        created = await client.post(
            "/v1/folders", json={"name": "sub", "parent_id": folder["id"]}, headers=stranger.headers
        )
        assert_problem(created, 404)
        assert_problem(await upload(client, stranger, "drop.txt", "x", folder_id=folder["id"]), 404)
        files = await client.get(
            "/v1/files", params={"folder_id": folder["id"]}, headers=stranger.headers
        )
        assert_problem(files, 404)

    mine = (await client.get("/v1/folders", headers=alice.headers)).json()
    assert [(f["id"], f["name"]) for f in mine] == [(folder["id"], "Projects")]
    inside = await client.get(
        "/v1/files", params={"folder_id": folder["id"]}, headers=alice.headers
    )
    assert [item["name"] for item in inside.json()["items"]] == ["inside.txt"]

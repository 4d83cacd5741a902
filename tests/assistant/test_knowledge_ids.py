"""An assistant's knowledge names only files and folders of its own mandate (or global
files); another mandate's id and an id of nothing are refused alike with 422."""

from __future__ import annotations

import httpx

from agentur.context import Role
from tests.api.files_helpers import assert_problem, upload_ok
from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants


def _with_knowledge(**knowledge: list[str]) -> dict:  # type: ignore[type-arg]
    definition = shop_definition()
    definition["knowledge"] = {**definition.get("knowledge", {}), **knowledge}
    return definition


async def test_foreign_and_unknown_knowledge_ids_are_refused(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member("acme", Role.admin)
    rival = await tenants.member("rival", Role.admin)
    root = await tenants.member("platform", Role.admin, platform_admin=True)
    own = await upload_ok(client, admin, "faq.txt", "Returns within 30 days.", scope="mandate")
    folder = (await client.post("/v1/folders", json={"name": "kb"}, headers=admin.headers)).json()
    theirs = await upload_ok(client, rival, "secret.txt", "theirs", scope="mandate")
    their_folder = (
        await client.post("/v1/folders", json={"name": "kb"}, headers=rival.headers)
    ).json()
    shared = await upload_ok(client, root, "terms.txt", "for everyone", scope="global")

    for knowledge, field, bad_id in [
        ({"file_ids": [own["id"], theirs["id"]]}, "file_ids", theirs["id"]),
        ({"file_ids": ["no-such-file"]}, "file_ids", "no-such-file"),
        ({"folder_ids": [their_folder["id"]]}, "folder_ids", their_folder["id"]),
        ({"folder_ids": [folder["id"], "nope"]}, "folder_ids", "nope"),
    ]:
        refused = await client.post(
            "/v1/assistants", json=_with_knowledge(**knowledge), headers=admin.headers
        )
        body = assert_problem(refused, 422, f"knowledge.{field}", bad_id)
        assert own["id"] not in body["detail"] and folder["id"] not in body["detail"]

    accepted = await client.post(
        "/v1/assistants",
        json=_with_knowledge(file_ids=[own["id"], shared["id"]], folder_ids=[folder["id"]]),
        headers=admin.headers,
    )
    assert accepted.status_code == 201, accepted.text
    assistant_id = accepted.json()["id"]
    # Replacing the definition is checked the same way.
    replaced = await client.put(
        f"/v1/assistants/{assistant_id}",
        json=_with_knowledge(file_ids=[theirs["id"]]),
        headers=admin.headers,
    )
    assert_problem(replaced, 422, "knowledge.file_ids", theirs["id"])
    kept = await client.get(f"/v1/assistants/{assistant_id}", headers=admin.headers)
    assert kept.json()["knowledge"]["file_ids"] == [own["id"], shared["id"]]

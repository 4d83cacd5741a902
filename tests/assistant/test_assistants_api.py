"""Configuration API: whole-definition create, sub-resources, validation errors naming the
field, encrypted credentials, tenant isolation, and what a publishable key may (not) do."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy import select

from agentur.context import Role
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant
from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants
from tests.reread_settings import reread_settings


async def _create(client: httpx.AsyncClient, headers: dict[str, str], **overrides) -> str:  # type: ignore[no-untyped-def]
    response = await client.post(
        "/v1/assistants", json=shop_definition(**overrides), headers=headers
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def _visitor_headers(
    client: httpx.AsyncClient, assistant_id: str, headers: dict[str, str]
) -> dict[str, str]:
    key = (await client.post(f"/v1/assistants/{assistant_id}/visitor-keys", headers=headers)).json()
    return {"Authorization": f"Bearer {key['key']}"}


async def test_validation_errors_name_the_offending_field(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    bad = shop_definition()
    del bad["faqs"][0]["answer"]
    response = await client.post("/v1/assistants", json=bad, headers=admin.headers)
    assert response.status_code == 422
    assert "faqs.0.answer" in response.json()["detail"]
    typo = shop_definition(instructionz="x")
    assert (
        "instructionz"
        in (await client.post("/v1/assistants", json=typo, headers=admin.headers)).json()["detail"]
    )
    dangling = shop_definition()
    dangling["flows"][0]["steps"][-1]["help_desk"] = "nowhere"
    detail = (await client.post("/v1/assistants", json=dangling, headers=admin.headers)).json()[
        "detail"
    ]
    assert "unknown help desk 'nowhere'" in detail
    hidden = shop_definition(
        api_catalog={"base_url": "http://0177.0.0.1:18201/api", "endpoints": []}
    )
    refused = await client.post("/v1/assistants", json=hidden, headers=admin.headers)
    assert refused.status_code == 422
    assert "api_catalog.base_url" in refused.json()["detail"]
    assert "0177.0.0.1" in refused.json()["detail"] and "127.0.0.1" in refused.json()["detail"]


async def test_sub_resource_crud(client: httpx.AsyncClient, tenants: Tenants) -> None:
    admin = await tenants.member()
    assistant_id = await _create(client, admin.headers)
    base = f"/v1/assistants/{assistant_id}"
    added = await client.post(
        f"{base}/faqs",
        json={"question": "Do you ship abroad?", "answer": "Yes."},
        headers=admin.headers,
    )
    assert added.status_code == 201, added.text
    faq_id = added.json()["id"]
    replaced = await client.put(
        f"{base}/faqs/{faq_id}",
        json={"question": "Abroad?", "answer": "Yes, EU."},
        headers=admin.headers,
    )
    assert replaced.json() == {
        "id": faq_id,
        "question": "Abroad?",
        "answer": "Yes, EU.",
        "variants": [],
        "keywords": [],
        "url": None,
        "language": None,
        "translations": {},
    }
    bad = await client.post(f"{base}/faqs", json={"question": "No answer"}, headers=admin.headers)
    # The body is the item itself, so the error names its own field.
    assert bad.status_code == 422 and "answer: Field required" in bad.json()["detail"]
    # Deleting a desk a flow hands off to would leave a dangling reference: refused.
    refused = await client.delete(f"{base}/help-desks/support", headers=admin.headers)
    assert refused.status_code == 422 and "unknown help desk" in refused.json()["detail"]
    assert (await client.delete(f"{base}/faqs/{faq_id}", headers=admin.headers)).status_code == 204
    assert [f["id"] for f in (await client.get(f"{base}/faqs", headers=admin.headers)).json()] == [
        "returns"
    ]
    flows = (await client.get(f"{base}/flows", headers=admin.headers)).json()
    assert flows[0]["name"] == "Order status wizard"
    assert (await client.delete(f"{base}/faqs/nope", headers=admin.headers)).status_code == 404


async def test_credentials_are_encrypted_and_never_returned(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    admin = await tenants.member()
    catalog = {
        "base_url": "https://api.example.test/v2",
        "credential": {"kind": "header", "name": "X-Api-Key", "value": "top-secret-123"},
        "endpoints": [{"name": "order", "path": "/orders/{id}"}],
    }
    assistant_id = await _create(client, admin.headers, api_catalog=catalog)
    shown = await client.get(f"/v1/assistants/{assistant_id}", headers=admin.headers)
    assert "top-secret-123" not in shown.text
    assert shown.json()["api_catalog"]["has_credential"] is True
    async with runtime.database.session() as session:
        row = (
            await session.execute(select(Assistant).where(Assistant.id == assistant_id))
        ).scalar_one()
    assert row.credential_encrypted and "top-secret-123" not in row.credential_encrypted
    assert "top-secret-123" not in str(row.definition)
    # Replacing the catalog without a credential keeps the sealed one.
    catalog.pop("credential")
    kept = await client.put(
        f"/v1/assistants/{assistant_id}/api-catalog", json=catalog, headers=admin.headers
    )
    assert kept.json()["has_credential"] is True


async def test_publishable_key_cannot_read_configuration_or_other_assistants(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    mine = await _create(client, admin.headers)
    other = await _create(client, admin.headers, name="Other")
    visitor = await _visitor_headers(client, mine, admin.headers)
    for method, path in [
        ("GET", "/v1/assistants"),
        ("GET", f"/v1/assistants/{mine}"),
        ("GET", f"/v1/assistants/{mine}/faqs"),
        ("GET", f"/v1/assistants/{mine}/decisions"),
        ("POST", f"/v1/assistants/{mine}/visitor-keys"),
        ("DELETE", f"/v1/assistants/{mine}"),
        ("GET", "/v1/files"),
    ]:
        response = await client.request(method, path, headers=visitor)
        assert response.status_code == 401, (method, path, response.status_code)
    assert (
        await client.post(f"/v1/assistants/{other}/conversations", headers=visitor)
    ).status_code == 404
    own = await client.post(f"/v1/assistants/{mine}/conversations", headers=visitor)
    assert own.status_code == 201
    # A conversation of the other assistant stays out of reach too.
    other_cid = (
        await client.post(f"/v1/assistants/{other}/conversations", headers=admin.headers)
    ).json()["id"]
    sneaky = await client.post(
        f"/v1/assistants/{mine}/conversations/{other_cid}/messages",
        json={"text": "hi"},
        headers=visitor,
    )
    assert sneaky.status_code == 404


async def test_revoked_visitor_key_and_rate_limit(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("AGENTUR_ASSISTANT_VISITOR_RATE_PER_MINUTE", "2")
    reread_settings(runtime)
    admin = await tenants.member()
    assistant_id = await _create(client, admin.headers)
    key = (
        await client.post(f"/v1/assistants/{assistant_id}/visitor-keys", headers=admin.headers)
    ).json()
    visitor = {"Authorization": f"Bearer {key['key']}"}
    url = f"/v1/assistants/{assistant_id}/conversations"
    assert [(await client.post(url, headers=visitor)).status_code for _ in range(3)] == [
        201,
        201,
        429,
    ]
    await client.delete(
        f"/v1/assistants/{assistant_id}/visitor-keys/{key['id']}", headers=admin.headers
    )
    assert (await client.post(url, headers=visitor)).status_code == 401


async def test_other_mandates_and_viewers(client: httpx.AsyncClient, tenants: Tenants) -> None:
    admin = await tenants.member("acme")
    stranger = await tenants.member("globex")
    viewer = await tenants.member("acme", Role.viewer)
    assistant_id = await _create(client, admin.headers)
    assert (
        await client.get(f"/v1/assistants/{assistant_id}", headers=stranger.headers)
    ).status_code == 404
    assert (
        await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=stranger.headers)
    ).status_code == 404
    assert (await client.get("/v1/assistants", headers=stranger.headers)).json() == []
    assert (
        await client.delete(f"/v1/assistants/{assistant_id}", headers=viewer.headers)
    ).status_code == 403
    # A conversation's caller context ignores X-Feature-Instance (the assistant's own scope
    # rules apply), where the workspace refuses an instance that is not the mandate's.
    foreign_instance = {**admin.headers, "X-Feature-Instance": str(uuid.uuid4())}
    started = await client.post(
        f"/v1/assistants/{assistant_id}/conversations", headers=foreign_instance
    )
    assert started.status_code == 201, started.text
    assert (await client.get("/v1/files", headers=foreign_instance)).status_code == 403


async def test_cors_only_for_allowed_origins(client: httpx.AsyncClient, tenants: Tenants) -> None:
    admin = await tenants.member()
    assistant_id = await _create(client, admin.headers, allowed_origins=["https://shop.example"])
    url = f"/v1/assistants/{assistant_id}/conversations"
    allowed = await client.options(url, headers={"Origin": "https://shop.example"})
    assert allowed.headers["access-control-allow-origin"] == "https://shop.example"
    denied = await client.options(url, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in denied.headers
    started = await client.post(url, headers={**admin.headers, "Origin": "https://shop.example"})
    assert started.headers["access-control-allow-origin"] == "https://shop.example"


async def test_conversation_is_bound_to_its_key_and_token(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    assistant_id = await _create(client, admin.headers, allowed_origins=["https://shop.example"])
    key = await _visitor_headers(client, assistant_id, admin.headers)
    second_key = await _visitor_headers(client, assistant_id, admin.headers)
    base = f"/v1/assistants/{assistant_id}/conversations"
    started = (await client.post(base, headers=key)).json()
    other = (await client.post(base, headers=key)).json()
    assert started["token"] and started["token"] != other["token"]
    messages = f"{base}/{started['id']}/messages"
    escalations = f"{base}/{started['id']}/escalations"
    token = {"X-Conversation-Token": started["token"]}
    for headers in [
        key,  # the public key alone is not enough
        {**key, "X-Conversation-Token": "act_guessed"},
        {**key, "X-Conversation-Token": other["token"]},  # another conversation's token
        {**second_key, **token},  # the right token with another key of the same assistant
    ]:
        said = await client.post(messages, json={"text": "hi"}, headers=headers)
        assert said.status_code == 404, said.text
        assert (await client.get(messages, headers=headers)).status_code == 404
        escalated = await client.post(
            escalations, json={"help_desk": "support", "text": "help"}, headers=headers
        )
        assert escalated.status_code == 404
    said = await client.post(messages, json={"text": "hi"}, headers={**key, **token})
    assert said.status_code == 200, said.text
    history = await client.get(messages, headers={**key, **token})
    assert [m["role"] for m in history.json()] == ["visitor", "assistant"]
    # The mandate's own staff may read every conversation of their mandate without the token.
    assert len((await client.get(messages, headers=admin.headers)).json()) == 2
    # A conversation started with a mandate key is not reachable with a publishable key.
    staff = (await client.post(base, headers=admin.headers)).json()
    staff_messages = f"{base}/{staff['id']}/messages"
    staff_token = {"X-Conversation-Token": staff["token"]}
    assert (await client.get(staff_messages, headers={**key, **staff_token})).status_code == 404
    # Browsers may send the token header cross-origin.
    allowed = await client.options(
        messages,
        headers={"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"},
    )
    assert "X-Conversation-Token" in allowed.headers["access-control-allow-headers"]

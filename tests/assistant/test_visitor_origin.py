"""A publishable key works only from the origins its assistant lists: the server refuses the
request (403) — it does not merely leave out the CORS headers while the turn still runs."""

from __future__ import annotations

import httpx
from sqlalchemy import func, select

from agentur.runtime import Runtime
from agentur.storage.models.assistant import AssistantConversation
from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants

SHOP = "https://shop.example"
EVIL = "https://evil.example"


async def _assistant_and_key(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> tuple[str, dict[str, str]]:
    # Configured with a trailing slash and capitals: the browser's Origin has neither.
    created = await client.post(
        "/v1/assistants",
        json=shop_definition(allowed_origins=["https://Shop.Example/"]),
        headers=headers,
    )
    assert created.status_code == 201, created.text
    assistant_id = created.json()["id"]
    key = await client.post(f"/v1/assistants/{assistant_id}/visitor-keys", headers=headers)
    return assistant_id, {"Authorization": f"Bearer {key.json()['key']}"}


async def _conversations(runtime: Runtime) -> int:
    async with runtime.database.session() as session:
        return int(await session.scalar(select(func.count(AssistantConversation.id))) or 0)


async def test_a_publishable_key_from_another_origin_is_refused(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    admin = await tenants.member()
    assistant_id, key = await _assistant_and_key(client, admin.headers)
    base = f"/v1/assistants/{assistant_id}/conversations"

    refused = await client.post(base, headers={**key, "Origin": EVIL})
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert EVIL in refused.json()["detail"] and "allowed_origins" in refused.json()["detail"]
    assert "access-control-allow-origin" not in refused.headers
    assert await _conversations(runtime) == 0  # nothing was started

    started = await client.post(base, headers={**key, "Origin": SHOP})
    assert started.status_code == 201, started.text
    assert started.headers["access-control-allow-origin"] == SHOP
    conversation = started.json()
    visitor = {**key, "X-Conversation-Token": conversation["token"]}
    messages = f"{base}/{conversation['id']}/messages"

    # Even with the right token, the conversation cannot be continued or read from elsewhere.
    said = await client.post(messages, json={"text": "hi"}, headers={**visitor, "Origin": EVIL})
    assert said.status_code == 403
    assert (await client.get(messages, headers={**visitor, "Origin": EVIL})).status_code == 403
    escalated = await client.post(
        f"{base}/{conversation['id']}/escalations",
        json={"help_desk": "support", "text": "help"},
        headers={**visitor, "Origin": EVIL},
    )
    assert escalated.status_code == 403
    history = await client.get(messages, headers={**visitor, "Origin": SHOP})
    assert history.status_code == 200 and history.json() == []  # the refused message is not kept

    said = await client.post(messages, json={"text": "hi"}, headers={**visitor, "Origin": SHOP})
    assert said.status_code == 200, said.text
    assert said.headers["access-control-allow-origin"] == SHOP
    assert history.headers["access-control-allow-origin"] == SHOP


async def test_errors_to_an_allowed_origin_are_readable(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    """The widget must be able to read a problem+json (a lost conversation, bad input)."""
    admin = await tenants.member()
    assistant_id, key = await _assistant_and_key(client, admin.headers)
    base = f"/v1/assistants/{assistant_id}/conversations"
    shop = {**key, "Origin": SHOP}
    conversation = (await client.post(base, headers=shop)).json()
    messages = f"{base}/{conversation['id']}/messages"
    lost = await client.get(messages, headers={**shop, "X-Conversation-Token": "act_wrong"})
    assert lost.status_code == 404
    assert lost.headers["access-control-allow-origin"] == SHOP
    visitor = {**shop, "X-Conversation-Token": conversation["token"]}
    blank = await client.post(messages, json={"text": "   "}, headers=visitor)
    assert blank.status_code == 422
    assert blank.headers["access-control-allow-origin"] == SHOP
    # Not for an origin the assistant does not list, nor for a request without one.
    elsewhere = await client.get(messages, headers={**visitor, "Origin": EVIL})
    assert "access-control-allow-origin" not in elsewhere.headers
    missing = await client.get(f"/v1/assistants/{assistant_id}/nothing-here", headers=key)
    assert "access-control-allow-origin" not in missing.headers


async def test_origin_rules_apply_to_visitor_keys_only(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    assistant_id, key = await _assistant_and_key(client, admin.headers)
    base = f"/v1/assistants/{assistant_id}/conversations"
    # A sandboxed frame or a file:// page sends the literal origin "null".
    assert (await client.post(base, headers={**key, "Origin": "null"})).status_code == 403
    # No Origin: not a cross-site browser request (a server or curl, which could forge any).
    assert (await client.post(base, headers=key)).status_code == 201
    # The mandate's own keys are secret and not bound to a website.
    staff = await client.post(base, headers={**admin.headers, "Origin": EVIL})
    assert staff.status_code == 201
    assert "access-control-allow-origin" not in staff.headers
    # The preflight of a refused origin gets no CORS grant either.
    preflight = await client.options(
        base, headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers


async def test_only_web_origins_can_be_allowed(client: httpx.AsyncClient, tenants: Tenants) -> None:
    """ "null" is what every sandboxed frame and file: page sends: listing it would hand the
    publishable key to any site. "*", paths and other schemes are no origins either."""
    admin = await tenants.member()
    for bad in ("null", "*", "https://shop.example/widget", "javascript:alert(1)", SHOP + "\n"):
        response = await client.post(
            "/v1/assistants", json=shop_definition(allowed_origins=[bad]), headers=admin.headers
        )
        assert response.status_code == 422, (bad, response.text)
        assert "allowed_origins" in response.json()["detail"], bad
        assert "not a web origin" in response.json()["detail"], bad
    good = ["https://Shop.Example/", "http://localhost:8080", "https://[::1]:8443"]
    created = await client.post(
        "/v1/assistants", json=shop_definition(allowed_origins=good), headers=admin.headers
    )
    assert created.status_code == 201, created.text
    assert created.json()["allowed_origins"] == good

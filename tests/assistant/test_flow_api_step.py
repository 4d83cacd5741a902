"""A flow's `call_api` step through the whole API: deterministic, the credential injected
server-side, and the secret nowhere in what the visitor or the conversation log gets."""

from __future__ import annotations

import httpx
import pytest

from agentur.runtime import Runtime
from tests.assistant.definitions import shop_definition
from tests.assistant.http_server import recording_server
from tests.conftest import Tenants
from tests.reread_settings import reread_settings

SECRET = "sk-live-very-secret"


async def test_flow_calls_the_catalog_with_server_side_credentials(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = await tenants.member()
    with recording_server() as (base, recorded):
        # The test server is on 127.0.0.1: exempt exactly it, as an operator would.
        monkeypatch.setenv("AGENTUR_ASSISTANT_API_ALLOWED_HOSTS", base.removeprefix("http://"))
        reread_settings(runtime)
        definition = shop_definition(
            api_catalog={
                "base_url": f"{base}/api",
                "credential": {"kind": "bearer", "value": SECRET},
                "endpoints": [{"name": "order", "path": "/orders/{order_id}"}],
            }
        )
        definition["flows"][0]["steps"] = [
            {
                "kind": "ask",
                "id": "n",
                "prompt": "Order number?",
                "variable": "order",
                "validation": {"kind": "regex", "pattern": "[0-9]{5}"},
            },
            {
                "kind": "call_api",
                "id": "c",
                "endpoint": "order",
                "path_params": {"order_id": "{order}"},
                "result_variable": "status",
                "result_path": "status",
            },
            {"kind": "say", "id": "s", "text": "Order {order} is {status}."},
        ]
        created = await client.post("/v1/assistants", json=definition, headers=admin.headers)
        assert created.status_code == 201, created.text
        assistant_id = created.json()["id"]
        cid = (
            await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=admin.headers)
        ).json()["id"]
        url = f"/v1/assistants/{assistant_id}/conversations/{cid}/messages"
        await client.post(url, json={"text": "Where is my order?"}, headers=admin.headers)
        answer = await client.post(
            url, json={"text": "12345"}, headers={**admin.headers, "Accept": "text/event-stream"}
        )
        history = await client.get(url, headers=admin.headers)
        decisions = await client.get(
            f"/v1/assistants/{assistant_id}/decisions", headers=admin.headers
        )
    assert "Order 12345 is shipped." in answer.text
    assert [r["path"] for r in recorded.requests] == ["/api/orders/12345"]
    assert recorded.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    for response in (created, answer, history, decisions):
        assert SECRET not in response.text

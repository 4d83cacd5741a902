"""An API catalog's base URL follows the one egress rule when it is saved — by `POST`, `PUT` of
the definition and `PUT …/api-catalog` — not only when it is called: 422 naming the field and
the rule, nothing stored. A target the operator lists in `AGENTUR_EGRESS_ALLOWED_HOSTS` is
saved and called. The credential is a header value: one line, or 422."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.definition import ApiCatalog
from agentur.assistant.settings import AssistantSettings
from agentur.egress.check_target import EgressRefusedError
from agentur.egress.settings import allowed_hosts
from tests.api.files_helpers import assert_problem
from tests.assistant.definitions import shop_definition
from tests.assistant.http_server import Recorded, recording_server
from tests.conftest import Tenants
from tests.connections.test_connection_egress import FILE_URL, REFUSAL_WORDS, SPELLINGS
from tests.egress.allowed_hosts import SETTING, allow, reread


@pytest.fixture
def server() -> Iterator[tuple[str, Recorded]]:
    with recording_server() as running:
        yield running


def catalog(base_url: str, **credential: str) -> dict[str, object]:
    return {
        "base_url": base_url,
        "endpoints": [{"name": "order", "path": "/orders/{order_id}"}],
        **({"credential": credential} if credential else {}),
    }


async def test_a_refused_base_url_is_not_saved(
    client: httpx.AsyncClient,
    tenants: Tenants,
    server: tuple[str, Recorded],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SETTING, raising=False)
    base, recorded = server
    port = base.rsplit(":", 1)[1]
    admin = await tenants.member()
    created = await client.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    assistant_id = created.json()["id"]
    urls = [f"http://{host}:{port}/api" for host in SPELLINGS] + [FILE_URL]
    for url in urls:
        definition = shop_definition(api_catalog=catalog(url))
        for response in (
            await client.post("/v1/assistants", json=definition, headers=admin.headers),
            await client.put(
                f"/v1/assistants/{assistant_id}", json=definition, headers=admin.headers
            ),
            await client.put(
                f"/v1/assistants/{assistant_id}/api-catalog",
                json=catalog(url),
                headers=admin.headers,
            ),
        ):
            problem = assert_problem(response, 422, "base_url")
            # `file:` fails the schema's own pattern (http/https only) before the rule.
            words = (*REFUSAL_WORDS, "should match pattern '^https?://")
            assert any(word in problem["detail"] for word in words), (url, problem)
    listed = (await client.get("/v1/assistants", headers=admin.headers)).json()
    assert [a["id"] for a in listed] == [assistant_id] and listed[0]["api_catalog"] is None
    assert recorded.requests == []


async def test_a_listed_target_is_saved_and_called(
    client: httpx.AsyncClient,
    tenants: Tenants,
    server: tuple[str, Recorded],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, recorded = server
    admin = await tenants.member()
    allow(monkeypatch, base)  # as the README tells an operator
    saved = catalog(f"{base}/api")
    created = await client.post(
        "/v1/assistants", json=shop_definition(api_catalog=saved), headers=admin.headers
    )
    assert created.status_code == 201, created.text
    # Calls are made under the limits the assistant's settings give, the listing included.
    api = AssistantApi(
        ApiCatalog.model_validate(saved), AssistantSettings().api_limits(allowed_hosts())
    )
    response = await api.call("order", {"order_id": "7"})
    assert response.status == 200 and recorded.requests[0]["path"] == "/api/orders/7"
    monkeypatch.delenv(SETTING)
    reread(monkeypatch)  # as a restart reads the settings again
    with pytest.raises(EgressRefusedError, match="loopback"):
        await AssistantApi(api.catalog, AssistantSettings().api_limits(allowed_hosts())).call(
            "order", {"order_id": "8"}
        )
    assert len(recorded.requests) == 1


@pytest.mark.parametrize("value", ["t\r\nX-Injected: 1", "t\nx", "t\x00x"])
async def test_a_credential_is_one_line(
    client: httpx.AsyncClient, tenants: Tenants, value: str
) -> None:
    admin = await tenants.member()
    definition = shop_definition(
        api_catalog=catalog("https://api.example.test/v2", kind="bearer", value=value)
    )
    response = await client.post("/v1/assistants", json=definition, headers=admin.headers)
    assert_problem(response, 422, "api_catalog.credential.value")
    header = catalog("https://api.example.test/v2", kind="header", name="X-A\r\nB", value="v")
    response = await client.post(
        "/v1/assistants", json=shop_definition(api_catalog=header), headers=admin.headers
    )
    assert_problem(response, 422, "api_catalog.credential.name")

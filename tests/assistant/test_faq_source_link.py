"""A FAQ may name a web page with more on its answer: the FAQ source then carries it, and the
widget shows that source as a link. Only absolute http(s) addresses are accepted."""

from __future__ import annotations

import httpx

from agentur.assistant.definition import AssistantDefinition
from tests.assistant.definitions import RETURNS_ANSWER, shop_definition
from tests.assistant.turns import turn
from tests.conftest import Tenants

RETURNS_PAGE = "https://shop.example/help/returns#label"


def _with_url(url: str) -> dict:
    definition = shop_definition()
    definition["faqs"][0]["url"] = url
    return definition


async def test_the_faq_source_carries_its_page() -> None:
    definition = AssistantDefinition.model_validate(_with_url(RETURNS_PAGE))
    result = await turn("How can I return an item?", ai=None, definition=definition)
    assert result.final["answer"] == RETURNS_ANSWER
    assert result.final["sources"] == [
        {
            "kind": "faq",
            "faq_id": "returns",
            "question": "How can I return an item?",
            "language": "en",
            "url": RETURNS_PAGE,
        }
    ]


async def test_only_web_addresses_are_accepted(client: httpx.AsyncClient, tenants: Tenants) -> None:
    admin = await tenants.member()
    for bad in ["javascript:alert(1)", "shop.example/returns", "https://shop example/"]:
        refused = await client.post("/v1/assistants", json=_with_url(bad), headers=admin.headers)
        assert refused.status_code == 422, bad
        assert "faqs.0.url" in refused.json()["detail"]
    created = await client.post(
        "/v1/assistants", json=_with_url(RETURNS_PAGE), headers=admin.headers
    )
    assert created.status_code == 201
    faqs = f"/v1/assistants/{created.json()['id']}/faqs"
    assert (await client.get(faqs, headers=admin.headers)).json()[0]["url"] == RETURNS_PAGE

"""Issue 6 "done when": no provider configured, one POST creates the assistant, and a visitor
gets a verbatim FAQ answer, a deterministic flow, the escalation menu and an extractive
knowledge answer with citations."""

from __future__ import annotations

import json

import httpx

from tests.assistant.definitions import KNOWLEDGE_DOC, RETURNS_ANSWER, shop_definition
from tests.conftest import Tenants


async def _visitor(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> tuple[str, dict[str, str]]:
    created = await client.post("/v1/assistants", json=shop_definition(), headers=headers)
    assert created.status_code == 201, created.text
    assistant_id = created.json()["id"]
    key = await client.post(f"/v1/assistants/{assistant_id}/visitor-keys", headers=headers)
    assert key.status_code == 201, key.text
    return assistant_id, {"Authorization": f"Bearer {key.json()['key']}"}


async def _start(
    client: httpx.AsyncClient, assistant_id: str, visitor: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """A new conversation's id and the headers to continue it (key plus its token)."""
    started = await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=visitor)
    assert started.status_code == 201, started.text
    return started.json()["id"], {**visitor, "X-Conversation-Token": started.json()["token"]}


async def _say(client, assistant_id, conversation_id, text, headers):  # type: ignore[no-untyped-def]
    response = await client.post(
        f"/v1/assistants/{assistant_id}/conversations/{conversation_id}/messages",
        json={"text": text},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_done_when_without_any_provider(client: httpx.AsyncClient, tenants: Tenants) -> None:
    admin = await tenants.member()
    upload = await client.post(
        "/v1/files",
        headers=admin.headers,
        data={"scope": "mandate"},
        files={"file": ("shipping.md", KNOWLEDGE_DOC.encode(), "text/markdown")},
    )
    assert upload.status_code == 201, upload.text
    assistant_id, key = await _visitor(client, admin.headers)
    cid, visitor = await _start(client, assistant_id, key)

    faq = await _say(client, assistant_id, cid, "How do I return an item I bought?", visitor)
    assert faq["answer"] == RETURNS_ANSWER
    assert faq["sources"] == [
        {
            "kind": "faq",
            "faq_id": "returns",
            "question": "How can I return an item?",
            "language": "en",
        }
    ]
    assert "faq:returns" in faq["decision_path"]
    assert any(step.startswith("classify:router") for step in faq["decision_path"])

    flow = await _say(client, assistant_id, cid, "Where is my order?", visitor)
    assert "flow:order_status:start" in flow["decision_path"]
    assert flow["answer"] == "Let's find your order.\nWhat is your order number?"
    wrong = await _say(client, assistant_id, cid, "abc", visitor)
    assert wrong["answer"].startswith("Order numbers have five digits.")
    number = await _say(client, assistant_id, cid, "12345", visitor)
    assert number["answer"] == "How should we notify you?"
    assert number["actions"][-1]["type"] == "choice"
    done = await _say(client, assistant_id, cid, "E-mail", visitor)
    assert done["answer"].startswith("Order 12345: we will write via email.")

    person = await _say(client, assistant_id, cid, "I want to talk to a person", visitor)
    assert "escalation_menu" in person["decision_path"]
    menu = next(a for a in person["actions"] if a["type"] == "escalation_menu")
    assert menu["help_desk"]["id"] == "support"
    # No SMTP server here: e-mail is not offered; nor is a chat that names a bare queue.
    assert [o["kind"] for o in menu["options"]] == ["phone"]

    knowledge = await _say(
        client, assistant_id, cid, "How long does delivery to Germany take?", visitor
    )
    assert "search_knowledge:extractive" in knowledge["decision_path"]
    assert "five to eight working days" in knowledge["answer"]
    assert knowledge["answer"].startswith("Excerpts from our documents")
    citation = knowledge["sources"][0]
    assert citation["file"] == "shipping.md"
    assert citation["section"] == "Shipping guide > Delivery times"


async def test_sse_stream_carries_every_event_type(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    assistant_id, key = await _visitor(client, admin.headers)
    cid, visitor = await _start(client, assistant_id, key)
    response = await client.post(
        f"/v1/assistants/{assistant_id}/conversations/{cid}/messages",
        json={"text": "Can I send something back?"},
        headers={**visitor, "Accept": "text/event-stream"},
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [
        (block.split("\n")[0].removeprefix("event: "), json.loads(block.split("\n")[1][6:]))
        for block in response.text.strip().split("\n\n")
    ]
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "thinking" and kinds[-1] == "final"
    assert "chunk" in kinds and "sources" in kinds
    assert events[-1][1]["answer"] == RETURNS_ANSWER
    history = await client.get(
        f"/v1/assistants/{assistant_id}/conversations/{cid}/messages", headers=visitor
    )
    assert [m["role"] for m in history.json()] == ["visitor", "assistant"]


async def test_thinking_events_are_recorded_with_the_answer(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    assistant_id, key = await _visitor(client, admin.headers)
    cid, visitor = await _start(client, assistant_id, key)
    answer = await _say(client, assistant_id, cid, "Wie lange dauert der Versand?", visitor)
    assert answer["language"] == "de"
    assert answer["thinking"][0] == {"stage": "classify", "text": "Ich verstehe Ihre Frage…"}
    history = await client.get(
        f"/v1/assistants/{assistant_id}/conversations/{cid}/messages", headers=visitor
    )
    assert history.json()[1]["data"]["thinking"] == answer["thinking"]

"""Every main route holds at most one pooled database connection at a time.

A request that holds one connection and waits for a second one deadlocks the pool under
concurrency: with as many such requests as the pool has connections, each holds one and no one
gets its second until the pool timeout. This walks the main routes — sign-in, files, search,
agent runs (answer and stream), the gateway through `/openai/v1` (plain and streamed, also the
agent and an assistant), visitor messages, billing — with the gateway's real database store
and a prepaid balance (so every model call holds, charges and settles in the database), and
fails naming the code path of any second checkout (see `tests/connection_discipline.py`)."""

from __future__ import annotations

from dataclasses import replace

import httpx

from agentur.ai.database_gateway_store import DatabaseGatewayStore
from agentur.ai.mandate_ai_settings import update_mandate_ai_settings
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore, knowledge_store, use_knowledge_store
from agentur.runtime import Runtime
from tests.agent.support import chat_model
from tests.assistant.definitions import shop_definition
from tests.conftest import Member, Tenants
from tests.connection_discipline import ConnectionDiscipline
from tests.knowledge.conftest import knowledge_settings

PRICED = {"input_price_usd_per_mtok": 1.0, "output_price_usd_per_mtok": 2.0}


async def _priced_gateway(runtime: Runtime, member: Member) -> None:
    """The scripted models, priced, billed through the database against a balance."""
    settings = AiSettings()
    chat = chat_model(**PRICED)
    embedding = replace(ScriptedProvider().models()[1], **PRICED)
    provider = ScriptedProvider(model_specs=[chat, embedding], fallback=ScriptedTurn("Done."))
    store = DatabaseGatewayStore(runtime.database, settings, MappingCipher.generated())
    await runtime.ai.aclose()
    runtime.ai = AiService([provider], settings=settings, store=store)
    async with runtime.database.transaction() as session:
        await update_mandate_ai_settings(
            session, member.mandate_id, {"balance_chf": 100.0, "monthly_limit_chf": 100.0}
        )
    use_knowledge_store(runtime, KnowledgeStore(runtime, knowledge_settings()))


async def test_main_routes_hold_one_connection_at_a_time(
    client: httpx.AsyncClient,
    discipline: ConnectionDiscipline,
    runtime: Runtime,
    tenants: Tenants,
) -> None:
    alice = await tenants.member()
    await _priced_gateway(runtime, alice)
    headers = alice.headers
    model = f"scripted:{chat_model().name}"

    async def ok(response: httpx.Response, status: int = 200) -> httpx.Response:
        assert response.status_code == status, f"{response.request.url}: {response.text}"
        return response

    signed = await ok(await client.post("/v1/sessions", json={"api_key": alice.key}), 201)
    await ok(await client.get("/v1/sessions/current", cookies=signed.cookies))
    await ok(await client.get("/v1/me", headers=headers))
    uploaded = await ok(
        await client.post(
            "/v1/files", headers=headers, files={"file": ("ferry.txt", b"Ferries leave hourly.")}
        ),
        201,
    )
    file_id = uploaded.json()["id"]
    await knowledge_store(runtime).worker.run_until_idle()
    await ok(await client.get("/v1/files", headers=headers))
    await ok(await client.get(f"/v1/files/{file_id}/content", headers=headers))
    await ok(await client.get(f"/v1/files/{file_id}/index", headers=headers))
    search = {"query": "when do ferries leave", "limit": 5}
    found = await ok(await client.post("/v1/knowledge/search", json=search, headers=headers))
    assert found.json()["legs"] == ["vector", "lexical"], found.json()

    run = {"prompt": "Say hello."}
    answered = await ok(await client.post("/v1/agent/runs", json=run, headers=headers))
    streamed = await ok(
        await client.post(
            "/v1/agent/runs", json=run, headers={**headers, "Accept": "text/event-stream"}
        )
    )
    assert "event: final" in streamed.text
    await ok(await client.get(f"/v1/agent/runs/{answered.json()['run_id']}", headers=headers))

    chat = {"model": model, "messages": [{"role": "user", "content": "Hi"}]}
    await ok(await client.post("/openai/v1/chat/completions", json=chat, headers=headers))
    stream = {**chat, "stream": True}
    chunks = await ok(
        await client.post("/openai/v1/chat/completions", json=stream, headers=headers)
    )
    assert "[DONE]" in chunks.text
    agent = {**chat, "model": "agentur-agent"}
    await ok(await client.post("/openai/v1/chat/completions", json=agent, headers=headers))

    created = await ok(
        await client.post("/v1/assistants", json=shop_definition(), headers=headers), 201
    )
    assistant_id = created.json()["id"]
    helper = {**chat, "model": f"assistant:{assistant_id}"}
    await ok(await client.post("/openai/v1/chat/completions", json=helper, headers=headers))
    key = await ok(
        await client.post(f"/v1/assistants/{assistant_id}/visitor-keys", headers=headers), 201
    )
    visitor = {"Authorization": f"Bearer {key.json()['key']}"}
    started = await ok(
        await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=visitor), 201
    )
    visitor["X-Conversation-Token"] = started.json()["token"]
    messages = f"/v1/assistants/{assistant_id}/conversations/{started.json()['id']}/messages"
    for accept in ("application/json", "text/event-stream"):
        question = {"text": "When do the ferries leave?"}
        await ok(await client.post(messages, json=question, headers={**visitor, "Accept": accept}))
    await ok(await client.get("/v1/billing/usage", headers=headers))
    await ok(await client.get("/v1/billing/limits", headers=headers))

    assert discipline.checkouts > 0
    assert not discipline.violations, discipline.report()

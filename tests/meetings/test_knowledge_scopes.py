"""The fast path's knowledge context: a search of the file scopes the session may use, and
nothing from a session that allows none."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from agentur.ai.operation_types import OperationType
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.workspace.scope_names import Scope
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload
from tests.meetings.support import meeting_model, of, say, settled, start

PASSAGE = "Die Kantine Seeblick hat am Freitag bis 14 Uhr geöffnet."


async def test_the_fast_path_sees_knowledge_of_the_allowed_scopes_only(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, model = meeting_model()
    alice = await tenants.member()
    store = KnowledgeStore(runtime, knowledge_settings())
    use_knowledge_store(runtime, store)
    shared = await upload(
        runtime, alice.context, "kantine.txt", f"Kantine\n\n{PASSAGE}\n", scope=Scope.mandate
    )
    assert (await store.indexer.index_file(shared.id)).status in ("indexed", "lexical_only")
    question = {"speaker": "Anna", "text": "Agentur, bis wann hat die Kantine Seeblick offen?"}

    with_scope = await start(
        client, alice.headers, wake_name="Agentur", knowledge_scopes=["mandate"]
    )
    personal_only = await start(
        client, alice.headers, wake_name="Agentur", knowledge_scopes=["personal"]
    )
    without = await start(client, alice.headers, wake_name="Agentur")
    for meeting in (with_scope, personal_only, without):
        await say(client, alice.headers, meeting["id"], question)
        await settled(app, meeting["id"])

    sent = {
        request.workflow_id: request.messages[-1].content
        for request in of(model, OperationType.meeting_reply)
    }
    assert "KNOWLEDGE" in sent[with_scope["workflow_id"]]
    assert PASSAGE in sent[with_scope["workflow_id"]]
    assert "[kantine.txt]" in sent[with_scope["workflow_id"]]
    for meeting in (personal_only, without):
        assert PASSAGE not in sent[meeting["workflow_id"]]
        assert "KNOWLEDGE" not in sent[meeting["workflow_id"]]
    for meeting in (with_scope, personal_only, without):
        await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)

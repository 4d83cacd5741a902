"""Hints from other workflows with the real default embedding model (multilingual-e5-small),
where any two requests score ~0.75–0.85: a round of an unrelated task is no hint, a round of
the same task in other words is."""

from __future__ import annotations

from agentur.agent.hooks import RoundRecord, ToolResultRecord
from agentur.knowledge.hint_threshold import FLOOR, reference_requests
from agentur.knowledge.hooks import KnowledgeRoundMemory
from agentur.knowledge.memory import cosine
from agentur.knowledge.store import knowledge_store
from agentur.runtime import Runtime
from tests.conftest import Tenants

REQUEST = "Welches Budget hat das Projekt Alpenblick laut notes.txt?"
UNRELATED = "What is the phone number of our Geneva branch, per my files?"
RELATED = "Wer leitet laut notes.txt das Projekt Alpenblick?"


async def test_an_unrelated_round_is_no_hint_and_a_related_one_is(
    runtime: Runtime, tenants: Tenants
) -> None:
    store = knowledge_store(runtime)
    assert store.embedder.model.startswith("local:")  # the default, as a user gets it
    alice = await tenants.member("acme")
    memory = KnowledgeRoundMemory(runtime)
    read = [ToolResultRecord("read_file", {"file_id": "f1"}, '{"content": "..."}')]
    for workflow, decisions in (("wf-geneva", UNRELATED), ("wf-lead", RELATED)):
        record = RoundRecord(workflow, f"run-{workflow}", 1, tool_results=read, decisions=decisions)
        await memory.save_round(record, alice.context)

    async with runtime.database.session() as session:
        layers = await store.context_builder.build_layers(
            session, REQUEST, alice.context, workflow_id="wf-budget"
        )
    hints = layers[5].lines
    assert len(hints) == 1 and hints[0].startswith("- from workflow wf-lead,"), hints

    # What the fixed floor alone would have let through: the unrelated round clears it.
    request = (await store.embedder.embed_query(REQUEST, alice.context)).vectors[0]
    unrelated = (await store.embedder.embed([UNRELATED], alice.context, purpose="t")).vectors[0]
    assert cosine(request, unrelated) > FLOOR
    assert len(reference_requests()) >= 40

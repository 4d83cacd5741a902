"""Tenant and scope filters on both backends: nothing of mandate B, and no colleague's personal
file, is ever returned to A — not by search, not through build_agent_context."""

from __future__ import annotations

from agentur.knowledge.hooks import build_agent_context
from agentur.knowledge.search_legs import SearchFilters
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.workspace.scopes import Scope
from tests.knowledge.conftest import upload

SECRET = "# Zebra handbook\n\nThe zebra protocol keeps striped animals calm during transport."


async def test_scope_and_tenant_filters(runtime: Runtime, store: KnowledgeStore, tenants) -> None:
    alice = await tenants.member("acme")
    colleague = await tenants.member("acme")
    mallory = await tenants.member("other")
    own = await upload(runtime, alice.context, "own.md", SECRET + " Alice personal.")
    shared = await upload(
        runtime, colleague.context, "shared.md", SECRET + " Mandate copy.", scope=Scope.mandate
    )
    private = await upload(runtime, colleague.context, "private.md", SECRET + " Colleague only.")
    foreign = await upload(
        runtime, mallory.context, "foreign.md", SECRET + " Other tenant.", scope=Scope.mandate
    )
    outcomes = await store.worker.run_until_idle()
    assert {o.status for o in outcomes} == {"indexed"}
    assert all(o.embedded for o in outcomes)

    async with runtime.database.session() as session:
        result = await store.search.search(session, "zebra protocol transport", alice.context)
        assert result.legs == ["vector", "lexical"]
        assert {h.file_id for h in result.hits} == {own.id, shared.id}
        hit = result.hits[0]
        assert hit.heading_path == ["Zebra handbook"] and "zebra" in hit.text.lower()
        assert set(hit.legs) == {"vector", "lexical"}

        only_mandate = await store.search.search(
            session, "zebra", alice.context, filters=SearchFilters(scopes=["mandate"])
        )
        assert {h.file_id for h in only_mandate.hits} == {shared.id}
        by_file = await store.search.search(
            session, "zebra", alice.context, filters=SearchFilters(file_ids=[foreign.id, own.id])
        )
        assert {h.file_id for h in by_file.hits} == {own.id}

        theirs = await store.search.search(session, "zebra protocol", mallory.context)
        assert {h.file_id for h in theirs.hits} == {foreign.id}

    block = await build_agent_context(runtime, "zebra protocol transport", alice.context)
    assert "own.md" in block and "shared.md" in block
    assert "private.md" not in block and "Colleague only" not in block
    assert "foreign.md" not in block and "Other tenant" not in block
    assert private.id not in block


async def test_memory_layers_stay_in_their_tenant(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    from agentur.agent.hooks import RoundRecord, ToolResultRecord
    from agentur.knowledge.hooks import KnowledgeRoundMemory

    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    memory = KnowledgeRoundMemory(runtime)
    await memory.save_round(
        RoundRecord("wf-1", "run-a", 0, decisions="Zebra transport plan approved by Alice"),
        alice.context,
    )
    await memory.save_round(
        RoundRecord(
            "wf-1",
            "run-m",
            0,
            tool_results=[ToolResultRecord("read_file", {}, "zebra secret of Mallory")],
            decisions="zebra transport plan of the other tenant",
        ),
        mallory.context,
    )
    async with runtime.database.transaction() as session:
        await store.facts.remember(session, alice.context, "wf-1", "customer", "Zoo Basel")
        await store.facts.remember(session, mallory.context, "wf-1", "customer", "Zoo Other")
    block = await build_agent_context(
        runtime, "zebra transport plan", alice.context, workflow_id="wf-1"
    )
    assert "approved by Alice" in block and "Zoo Basel" in block
    assert "Mallory" not in block and "other tenant" not in block and "Zoo Other" not in block
    async with runtime.database.session() as session:
        facts = await store.facts.list(session, mallory.context, "wf-1")
    assert [f.value for f in facts] == ["Zoo Other"]

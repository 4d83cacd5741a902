"""K4's six layers: each one present when its source has something, in K4's order, as data
(`build_layers`) and in the rendered block the agent's hook hands on."""

from __future__ import annotations

from agentur.agent.hooks import RoundRecord, ToolResultRecord
from agentur.knowledge.context_builder import render_layers
from agentur.knowledge.hooks import KnowledgeRoundMemory, build_agent_context
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.workspace.scopes import Scope
from tests.conftest import Tenants
from tests.knowledge.conftest import upload

TITLES = [
    "Known files",
    "Relevant documents",
    "Earlier rounds",
    "Workflow facts",
    "Shared mandate documents",
    "Hints from other workflows",
]
PROMPT = "zebra transport plan"


async def test_all_six_layers_in_k4_order(
    runtime: Runtime, store: KnowledgeStore, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    colleague = await tenants.member("acme")
    known = await upload(
        runtime, colleague.context, "gate-plan.md", "# Gate plan\n\nA gate.", scope=Scope.mandate
    )
    await upload(
        runtime, alice.context, "zebra-care.md", "# Zebra care\n\nZebra transport is calm."
    )
    await upload(
        runtime,
        colleague.context,
        "handbook.md",
        "# Staff handbook\n\n## Opening hours\n\nThe zoo opens at nine.",
        scope=Scope.mandate,
    )
    assert {o.status for o in await store.worker.run_until_idle()} == {"indexed"}
    memory = KnowledgeRoundMemory(runtime)
    await memory.save_round(
        RoundRecord("wf-1", "run-1", 1, file_refs=[known.id], decisions="Zebra transport plan"),
        alice.context,
    )
    done = [ToolResultRecord("write_file", {"name": "plan.md"}, '{"file_id": "f1"}')]
    await memory.save_round(
        RoundRecord(
            "wf-2", "run-2", 1, tool_results=done, decisions="Zebra transport plan approved"
        ),  # noqa: E501
        alice.context,
    )
    # A round whose every call failed is no hint, however close to the request.
    failed = [ToolResultRecord("read_file", {}, "error: zebra.md not found", is_error=True)]
    await memory.save_round(
        RoundRecord("wf-3", "run-3", 1, tool_results=failed, decisions="Zebra transport plan"),
        alice.context,
    )
    async with runtime.database.transaction() as session:
        await store.facts.remember(
            session, alice.context, "wf-1", "vet", "Dr. Stripe", kind="entity"
        )

    async with runtime.database.session() as session:
        layers = await store.context_builder.build_layers(
            session, PROMPT, alice.context, workflow_id="wf-1"
        )

    assert [(layer.number, layer.title) for layer in layers] == list(enumerate(TITLES, start=1))
    text = ["\n".join(layer.lines) for layer in layers]
    assert text[0] == f"- gate-plan.md (file_id {known.id})"
    assert (
        "[zebra-care.md (file_id " in text[1]
        and "— Zebra care] Zebra transport is calm." in text[1]
    )
    assert text[2].startswith("- round 1 (") and text[2].endswith("Zebra transport plan")
    assert text[3] == "- entity vet: Dr. Stripe"
    assert text[4] == "- handbook.md: Staff handbook"  # gate-plan.md: a known file already
    # A hint names its source workflow and its age, and holds what its tools returned, not
    # the model's words; the failed round of wf-3 is left out.
    assert text[5].startswith("- from workflow wf-2, 0 min ago (")
    assert text[5].endswith('write_file (ok): {"file_id": "f1"}') and "approved" not in text[5]
    assert "wf-3" not in text[5]
    assert all(0 < layer.used <= layer.budget_chars for layer in layers)

    block = render_layers(layers)
    assert block == await build_agent_context(runtime, PROMPT, alice.context, workflow_id="wf-1")
    positions = [block.index(f"### {title}\n") for title in TITLES]
    assert positions == sorted(positions)


async def test_empty_layers_stay_data_but_leave_the_block(
    runtime: Runtime, store: KnowledgeStore, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    async with runtime.database.transaction() as session:
        await store.facts.remember(session, alice.context, "wf-1", "vet", "Dr. Stripe")
    async with runtime.database.session() as session:
        layers = await store.context_builder.build_layers(
            session, PROMPT, alice.context, workflow_id="wf-1"
        )
        without_workflow = await store.context_builder.build_layers(session, PROMPT, alice.context)
    assert [layer.title for layer in layers] == TITLES
    assert [bool(layer.lines) for layer in layers] == [False, False, False, True, False, False]
    assert (
        render_layers(layers)
        == "## Knowledge context\n\n### Workflow facts\n- fact vet: Dr. Stripe"
    )
    assert not any(layer.lines for layer in without_workflow)
    assert render_layers(without_workflow) == ""


async def test_files_the_request_names_are_known_with_their_ids(
    runtime: Runtime, store: KnowledgeStore, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    stranger = await tenants.member("globex")
    notes = await upload(runtime, alice.context, "notes.txt", "Owner: Mara Keller")
    await upload(runtime, alice.context, "hours.md", "# Hours\n\nOpen Saturday 9 to 16.")
    await upload(runtime, stranger.context, "notes.txt", "Another mandate's notes.")
    prompt = "Create a folder named Archiv and copy notes.txt into it."
    async with runtime.database.session() as session:
        layers = await store.context_builder.build_layers(session, prompt, alice.context)
    # The request's file, with its id; not the other mandate's file of the same name.
    assert layers[0].lines == [f"- notes.txt (file_id {notes.id})"]

"""Workflow memory (K4 layer 4) end to end: a completed agent run writes its facts and entities
— by rules without a model, through the gateway with one — and a later run of the same workflow
is served them, while another workflow or another tenant never is."""

from __future__ import annotations

import json
import re

from sqlalchemy import select

from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentResult
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn, Step
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import WorkflowMemory
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload

INVOICE = (
    "Invoice 2024-117 for the zebra enclosure: total CHF 1'250.00, due 31.03.2026. "
    "Questions to billing@zoo-basel.ch"
)
ANSWER = "Invoice 2024-117 totals CHF 1'250.00 and is due on 31 March 2026."
FACTS_HEADING = "### Workflow facts"


async def use_store(
    runtime: Runtime, provider: ScriptedProvider, **settings: object
) -> KnowledgeStore:
    await runtime.ai.aclose()
    runtime.ai = AiService([provider], settings=AiSettings())
    store = KnowledgeStore(runtime, knowledge_settings(**settings))
    use_knowledge_store(runtime, store)
    return store


async def run(
    runtime: Runtime, prompt: str, context: RequestContext, workflow_id: str | None = None
) -> AgentResult:
    deps = runtime.agent_dependencies()
    result = await run_agent(prompt, AgentConfig(), context, deps, workflow_id=workflow_id)
    assert result.status.value == "completed", result.error
    return result


async def stored_facts(runtime: Runtime, mandate_id: str, workflow_id: str) -> dict[str, str]:
    async with runtime.database.session() as session:
        rows = await session.scalars(
            select(WorkflowMemory).where(
                WorkflowMemory.mandate_id == mandate_id, WorkflowMemory.workflow_id == workflow_id
            )
        )
        return {row.key: row.value for row in rows}


def facts_layer(request: AiRequest) -> str:
    """Layer 4 as the model saw it, wherever in the prompt the agent put the knowledge block."""
    prompt = "\n".join(message.content for message in request.messages)
    if FACTS_HEADING not in prompt:
        return ""
    return prompt.split(FACTS_HEADING, 1)[1].split("\n###", 1)[0].split("\n## ", 1)[0]


def agent_requests(provider: ScriptedProvider) -> list[AiRequest]:
    return [r for r in provider.received if r.operation == "agent"]


def read_and_answer(file_id: str) -> list[Step]:
    return [ScriptedTurn.call("read_file", file_id=file_id), ScriptedTurn(text=ANSWER)]


async def test_memory_of_run_1_is_served_in_run_2_of_its_workflow_only(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    provider = ScriptedProvider(fallback=ScriptedTurn(text="Noted."))
    await use_store(runtime, provider, knowledge_memory_extraction="rules")
    invoice = await upload(runtime, alice.context, "invoice.txt", INVOICE)
    provider.script.extend(read_and_answer(invoice.id))

    first = await run(runtime, "What does the zebra invoice say?", alice.context)

    assert first.workflow_id is not None
    facts = await stored_facts(runtime, alice.mandate_id, first.workflow_id)
    assert facts[f"file {invoice.id}"] == "invoice.txt"
    assert ANSWER not in facts.values()  # the model's answer is no fact
    assert "billing@zoo-basel.ch" in facts["e-mail billing@zoo-basel.ch"]
    assert "(result of read_file)" in facts["e-mail billing@zoo-basel.ch"]
    assert facts["amount CHF 1250.00"].endswith("(result of read_file)")
    assert facts["date 2026-03-31"].endswith("(result of read_file)")
    assert not [r for r in provider.received if r.operation == "data_extract"]  # rules only

    await run(runtime, "Whom do I ask about the zebra invoice?", alice.context, first.workflow_id)
    layer = facts_layer(agent_requests(provider)[2])
    assert "billing@zoo-basel.ch" in layer and "amount CHF 1250.00" in layer
    assert f"file {invoice.id}: invoice.txt" in layer

    other = await run(runtime, "Whom do I ask about the zebra invoice?", alice.context)
    assert other.workflow_id != first.workflow_id
    assert facts_layer(agent_requests(provider)[3]) == ""
    assert "e-mail billing@zoo-basel.ch" not in await stored_facts(
        runtime, alice.mandate_id, other.workflow_id or ""
    )

    await run(runtime, "Whom do I ask about the zebra invoice?", mallory.context)
    theirs = agent_requests(provider)[4]
    assert "zoo-basel" not in "\n".join(m.content for m in theirs.messages)
    assert await stored_facts(runtime, mallory.mandate_id, first.workflow_id) == {}


async def test_with_a_model_one_neutralized_billed_extraction_call_writes_the_memory(
    runtime: Runtime, tenants: Tenants
) -> None:
    member = await tenants.member("acme")
    alice = member.context.with_changes(require_neutralization=True)
    extraction_requests: list[AiRequest] = []

    def extract(request: AiRequest) -> ScriptedTurn:
        extraction_requests.append(request)
        sent = request.messages[1].content
        placeholder = re.search(r"\[EMAIL_\d+\]", sent)
        facts = [
            {"kind": "fact", "key": "invoice 2024-117 total", "value": "CHF 1'250.00"},
            {"kind": "entity", "key": "billing contact", "value": placeholder.group(0)},
        ]
        return ScriptedTurn(text=json.dumps({"facts": facts}))

    provider = ScriptedProvider(fallback=ScriptedTurn(text="Noted."))
    await use_store(runtime, provider)  # knowledge_memory_extraction: "auto"
    invoice = await upload(runtime, alice, "invoice.txt", INVOICE)
    provider.script.extend([*read_and_answer(invoice.id), extract])

    first = await run(runtime, "What does the zebra invoice say?", alice)

    assert len(extraction_requests) == 1
    request = extraction_requests[0]
    assert request.operation == "data_extract" and request.workflow_id == first.workflow_id
    sent = request.messages[1].content
    assert "Result of read_file" in sent and "Final answer" not in sent
    assert "billing@zoo-basel.ch" not in sent  # neutralized like every call
    ledger = [r for _, r in runtime.ai.store.ledger if r.operation == "data_extract"]
    assert [(r.mandate_id, r.workflow_id) for r in ledger] == [
        (member.mandate_id, first.workflow_id)
    ]
    facts = await stored_facts(runtime, member.mandate_id, first.workflow_id or "")
    assert facts == {
        f"file {invoice.id}": "invoice.txt",
        "invoice 2024-117 total": "CHF 1'250.00",
        "billing contact": "billing@zoo-basel.ch",  # re-identified in the reply
    }

    await run(runtime, "Whom do I ask?", alice, first.workflow_id)
    layer = facts_layer(agent_requests(provider)[2])
    assert "invoice 2024-117 total" in layer and "billing contact" in layer


async def test_a_workflow_keeps_its_most_recent_facts_and_off_writes_none(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    provider = ScriptedProvider(fallback=ScriptedTurn(text="Noted."))
    await use_store(
        runtime,
        provider,
        knowledge_memory_extraction="rules",
        knowledge_memory_facts_per_workflow=3,
    )
    invoice = await upload(runtime, alice.context, "invoice.txt", INVOICE)
    provider.script.extend(read_and_answer(invoice.id))
    first = await run(runtime, "What does the zebra invoice say?", alice.context)
    facts = await stored_facts(runtime, alice.mandate_id, first.workflow_id or "")
    # The first three of the run: the file, the successful call, the first entity it read.
    assert set(facts) == {
        f"file {invoice.id}",
        f"read_file file_id={invoice.id}",
        "e-mail billing@zoo-basel.ch",
    }

    await use_store(runtime, provider, knowledge_memory_extraction="off")
    second = await run(runtime, "And the due date?", alice.context)
    assert await stored_facts(runtime, alice.mandate_id, second.workflow_id or "") == {}
    assert not [r for r in provider.received if r.operation == "data_extract"]

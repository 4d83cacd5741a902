"""`query_feature_instance`: a nested sub-agent over a trustee instance, driven by a scripted
model, with the parent's budget, trace and request context."""

from __future__ import annotations

import json

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest, Role
from agentur.ai.providers.scripted import ScriptedTurn
from tests.agent.support import Recorder, call, chat_model, deps, scripted
from tests.features.support import trustee_instance

CONFIG = AgentConfig(initial_toolboxes=["trustee"])


def last_tool_result(request: AiRequest) -> dict:
    message = [m for m in request.messages if m.role is Role.tool][-1]
    return json.loads(message.content)


def answer_from_result(request: AiRequest) -> ScriptedTurn:
    value = last_tool_result(request)["groups"][0]["value"]
    return ScriptedTurn(
        text=f"Revenue booked: CHF {value} (journal_entries, SUM credit, account_number = 3200)."
    )


def parent_answer(request: AiRequest) -> ScriptedTurn:
    return ScriptedTurn(text="Sub-agent says: " + last_tool_result(request)["answer"])


async def test_a_balance_question_is_answered_from_movements(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    question = "How much revenue was booked?"
    ai, provider = scripted(
        [
            ScriptedTurn.call(
                "query_feature_instance", "p1", instance_id=instance_id, question=question
            ),
            # The naive answer: the year's closing balances of the income accounts.
            ScriptedTurn.call(
                "aggregate_table", "s1", table="accounts", function="SUM", column="closing_balance"
            ),
            ScriptedTurn.call(
                "aggregate_table",
                "s2",
                table="journal_entries",
                function="SUM",
                column="credit",
                filters=[{"column": "account_number", "op": "eq", "value": "3200"}],
            ),
            answer_from_result,
            parent_answer,
        ]
    )
    recorder = Recorder()
    result = await run_agent(
        question, CONFIG, member.context, deps(ai, runtime=runtime), emit=recorder
    )

    assert result.status == "completed"
    assert "CHF 4500.00" in result.final_text and "account_number = 3200" in result.final_text
    sub_prompt = provider.received[1].messages[0].content
    assert "closing_balance (money, balance)" in sub_prompt
    assert "Never SUM or AVG columns of kind `balance` or `total`" in sub_prompt
    assert "102x bank" in sub_prompt  # the trustee domain hints
    refused = [m for m in provider.received[2].messages if m.role is Role.tool][-1]
    assert refused.is_error and "balance column" in refused.content
    # The sub-agent's tools are not the parent's, and the parent's not the sub-agent's.
    assert {t.name for t in provider.received[1].tools} == {
        "browse_table",
        "query_table",
        "aggregate_table",
    }
    assert "aggregate_table" not in {t.name for t in provider.received[0].tools}
    nested = [e for e in recorder.of(EventType.tool_call) if e.get("nested")]
    assert [e["name"] for e in nested] == ["aggregate_table", "aggregate_table"]


async def test_nested_calls_are_in_the_parent_trace(client, runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    ai, _ = scripted(
        [
            ScriptedTurn.call(
                "query_feature_instance", "p1", instance_id=instance_id, question="?"
            ),
            ScriptedTurn.call("browse_table", "s1", table="invoices", sample_rows=1),
            ScriptedTurn(text="3 invoices"),
            ScriptedTurn(text="done"),
        ]
    )
    result = await run_agent("?", CONFIG, member.context, deps(ai, runtime=runtime))
    trace = await client.get(f"/v1/agent/runs/{result.run_id}", headers=member.headers)
    assert trace.status_code == 200, trace.text
    entries = trace.json()["entries"]
    nested = [e for e in entries if e["data"].get("nested") == "query_feature_instance"]
    kinds = [(e["kind"], e["data"].get("name")) for e in nested]
    assert ("tool_call", "browse_table") in kinds
    assert sum(1 for kind, _ in kinds if kind == "model_call") == 2
    assert all(e["round_index"] == 1 for e in nested)
    browse = next(e for e in nested if e["data"].get("name") == "browse_table")
    assert '"row_count": 3' in browse["data"]["result"]


async def test_an_instance_of_another_mandate_is_refused(runtime, tenants) -> None:
    owner = await tenants.member("acme")
    stranger = await tenants.member("globex")
    foreign_id = await trustee_instance(runtime, owner.context)
    await trustee_instance(runtime, stranger.context, filled=False)  # offers the toolbox
    ai, provider = scripted(
        [
            ScriptedTurn.call("query_feature_instance", "p1", instance_id=foreign_id, question="?"),
            ScriptedTurn(text="cannot"),
        ]
    )
    recorder = Recorder()
    await run_agent("?", CONFIG, stranger.context, deps(ai, runtime=runtime), emit=recorder)
    outcome = recorder.of(EventType.tool_result)[0]
    assert outcome["is_error"] and f"feature instance {foreign_id} not found" in outcome["content"]
    assert len(provider.received) == 2  # no sub-agent model call was made


async def test_the_sub_agent_stops_on_the_parents_budget_and_the_parent_gets_a_summary(
    runtime, tenants
) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    # CHF 0.001 per output token, 1000 output tokens at most: a call may cost up to CHF 1.
    priced = chat_model(output_price_usd_per_mtok=1000.0)
    ai, provider = scripted(
        [
            ScriptedTurn.call(
                "query_feature_instance", "p1", instance_id=instance_id, question="?"
            ),
            # ~2000 output tokens: the sub-agent spends the whole budget (words that do not
            # repeat: the gateway would stop "x" * 8000 as a loop).
            ScriptedTurn(
                text="".join(f"w{n:05d} " for n in range(1_200))[:8000],
                tool_calls=(call("browse_table", "s1", table="accounts"),),
            ),
            ScriptedTurn(text="never sent"),
        ],
        priced,
    )
    recorder = Recorder()
    result = await run_agent(
        "?",
        AgentConfig(initial_toolboxes=["trustee"], max_cost_chf=1.2),
        member.context,
        deps(ai, runtime=runtime),
        emit=recorder,
    )
    assert len(provider.received) == 2  # parent round 1, sub-agent round 1; then no money
    sub_result = json.loads(recorder.of(EventType.tool_result)[-1]["content"])
    assert sub_result["status"] == "budget_exceeded"
    assert sub_result["answer"].startswith("I stopped before finishing:")
    assert "browse_table" in sub_result["answer"]  # the summary lists what was done
    assert sub_result["cost_chf"] > 0.9
    assert result.status == "budget_exceeded"
    assert result.cost_chf > sub_result["cost_chf"]  # the sub-agent's calls are the run's


async def test_the_sub_agent_inherits_the_rounds_left(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    browse = ScriptedTurn.call("browse_table", "s", table="accounts")
    ai, provider = scripted(
        [
            ScriptedTurn.call(
                "query_feature_instance", "p1", instance_id=instance_id, question="?"
            ),
            browse,
            browse,
            ScriptedTurn(text="the sub-agent ran out of rounds"),
        ]
    )
    recorder = Recorder()
    result = await run_agent(
        "?",
        AgentConfig(initial_toolboxes=["trustee"], max_rounds=3),
        member.context,
        deps(ai, runtime=runtime),
        emit=recorder,
    )
    outcome = next(e for e in recorder.of(EventType.tool_result) if e["id"] == "p1")
    sub_result = json.loads(outcome["content"])
    # Round 1 of 3 is the parent's own: two are left for the sub-agent.
    assert sub_result["status"] == "max_rounds_reached" and sub_result["rounds"] == 2
    assert result.status == "completed" and result.rounds == 2
    assert len(provider.received) == 4


async def test_require_neutralization_of_the_parent_applies_to_sub_calls(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    question = "Which invoices did anna.meier@example.com ask about?"
    ai, provider = scripted(
        [
            ScriptedTurn.call(
                "query_feature_instance", "p1", instance_id=instance_id, question=question
            ),
            ScriptedTurn(text="none"),
            ScriptedTurn(text="none"),
        ]
    )
    context = member.context.with_changes(require_neutralization=True)
    await run_agent(question, CONFIG, context, deps(ai, runtime=runtime))
    sub_request = provider.received[1]
    sent = "\n".join(m.content for m in sub_request.messages)
    assert "Which invoices did" in sent
    assert "anna.meier@example.com" not in sent


async def test_request_toolbox_offers_trustee_only_with_an_instance(runtime, tenants) -> None:
    def offered_toolboxes(request: AiRequest) -> list[str]:
        meta = next(t for t in request.tools if t.name == "request_toolbox")
        return meta.parameters["properties"]["toolbox_id"]["enum"]

    without = await tenants.member("globex")
    ai, provider = scripted([ScriptedTurn(text="ok")])
    await run_agent("?", AgentConfig(), without.context, deps(ai, runtime=runtime))
    assert "trustee" not in offered_toolboxes(provider.received[0])

    member = await tenants.member("acme")
    await trustee_instance(runtime, member.context, filled=False)
    ai, provider = scripted([ScriptedTurn(text="ok")])
    await run_agent("?", AgentConfig(), member.context, deps(ai, runtime=runtime))
    assert "trustee" in offered_toolboxes(provider.received[0])
    assert "query_feature_instance" not in {t.name for t in provider.received[0].tools}

"""A2/A3: budget and round limits end a run with a status and a progress summary (FINAL),
never an exception; the next call's output is capped to what the budget still allows."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext, Role
from agentur.tool_loop.budget import Budget
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import Recorder, chat_model, deps, scripted

CONTEXT = RequestContext("user-1", "mandate-1", Role.member)


class Note(BaseModel):
    text: str = ""


async def note(args: Note, _: ToolContext) -> str:
    return "noted " + args.text


NOTE = Tool("note", "Take a note.", Note, note, read_only=True)


def endless(n: int) -> list[ScriptedTurn]:
    return [ScriptedTurn.call("note", f"c{i}", text=f"step {i}") for i in range(n)]


async def test_budget_exceeded_mid_run_ends_with_status_and_progress_summary() -> None:
    # 1 USD per 1000 input tokens; output 0 so the worst case is the prompt alone.
    model = chat_model(input_price_usd_per_mtok=1000.0, output_price_usd_per_mtok=0.0)
    ai, provider = scripted(endless(10), model)
    recorder = Recorder()
    # The system prompt alone is several hundred tokens: about CHF 0.4 to 0.6 per round.
    config = AgentConfig(max_cost_chf=1.5)

    result = await run_agent("work", config, CONTEXT, deps(ai, [NOTE]), emit=recorder)

    assert result.status == "budget_exceeded"
    assert 1 <= result.rounds < 10
    assert 0 < result.cost_chf <= 1.5
    # The round that would overrun the budget made no model call at all.
    assert len(provider.received) == result.rounds - 1
    final = recorder.of(EventType.final)
    assert final == [{"status": "budget_exceeded", "text": result.final_text}]
    assert "budget" in result.final_text and "note" in result.final_text
    assert recorder.names()[-1] == "agent_summary"
    assert recorder.of(EventType.agent_summary)[0]["cost_chf"] == result.cost_chf


async def test_next_call_output_is_capped_to_the_remaining_budget() -> None:
    # Output: 1 CHF per 1000 tokens. Budget 0.6 CHF; the prompt is free.
    model = chat_model(
        input_price_usd_per_mtok=0.0, output_price_usd_per_mtok=1000.0, max_output_tokens=4000
    )
    ai, provider = scripted([ScriptedTurn(text="short answer")], model)
    result = await run_agent(
        "hi", AgentConfig(max_cost_chf=0.6), CONTEXT, deps(ai, [NOTE], agent_min_output_tokens=10)
    )
    assert result.status == "completed"
    assert provider.received[0].options.max_output_tokens == 600


def test_budget_plan_refuses_when_not_even_the_minimum_output_fits() -> None:
    model = chat_model(input_price_usd_per_mtok=1000.0, output_price_usd_per_mtok=1000.0)
    budget = Budget(max_cost_chf=1.0, usd_to_chf=1.0, min_output_tokens=100)
    assert budget.plan_call(model, input_tokens=500).max_output_tokens == 500
    refused = budget.plan_call(model, input_tokens=950)
    assert not refused.allowed and "budget" in refused.reason


async def test_max_rounds_reached_ends_with_status_and_summary() -> None:
    ai, provider = scripted(endless(10))
    recorder = Recorder()
    result = await run_agent(
        "work", AgentConfig(max_rounds=3), CONTEXT, deps(ai, [NOTE]), emit=recorder
    )

    assert result.status == "max_rounds_reached"
    assert result.rounds == 3
    assert len(provider.received) == 3
    assert "3 rounds" in result.final_text
    assert "step 2" in result.final_text  # the progress lists the work done
    assert recorder.of(EventType.final)[0]["status"] == "max_rounds_reached"
    assert all(r.operation == OperationType.agent for r in provider.received)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": 101}, "max_rounds"),
        ({"max_cost_chf": -1}, "max_cost_chf"),
        ({"initial_toolboxes": ["nope"]}, "unknown toolbox nope"),
        ({"tool_set": "everything"}, "tool_set"),
        ({"max_round": 3}, "max_round"),
    ],
)
def test_config_rejects_out_of_range_values_clearly(config: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AgentConfig(**config)


def test_config_defaults() -> None:
    config = AgentConfig()
    assert (config.max_rounds, config.max_cost_chf, config.tool_set) == (25, None, "core")

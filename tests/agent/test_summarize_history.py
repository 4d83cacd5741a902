"""Progressive summarization: oldest turns summarized through DATA_ANALYSE, never splitting a
tool call from its result, recent turns verbatim, the prompt kept, the summary's cost counted."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.agent.summarize_history import group_turns, split_for_summary
from agentur.ai.messages import AiRequest, Message, Role, StreamDone, ToolCall
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import chat_model, deps

CONTEXT = RequestContext("user-1", "mandate-1", UserRole.member)


def history() -> tuple[Message, list[Message]]:
    prompt = Message.user("task")
    turns = [prompt]
    for index in range(4):
        calls = (ToolCall(f"a{index}", "look", {}), ToolCall(f"b{index}", "look", {}))
        turns.append(Message.assistant("", calls))
        turns += [Message.tool_result(c, f"result {c.id}") for c in calls]
    turns.append(Message.assistant("thinking"))
    return prompt, turns


def assert_pairs_whole(messages: list[Message]) -> None:
    """Every tool result follows its own call, and every call has its result."""
    open_calls: set[str] = set()
    for message in messages:
        if message.role is Role.assistant:
            assert not open_calls, f"calls without results: {open_calls}"
            open_calls = {call.id for call in message.tool_calls}
        elif message.role is Role.tool:
            assert message.tool_call_id in open_calls, f"orphan result {message.tool_call_id}"
            open_calls.discard(message.tool_call_id)
        else:
            assert not open_calls
    assert not open_calls


@pytest.mark.parametrize("keep_recent", [1, 2, 3, 10])
def test_split_never_separates_a_call_from_its_results(keep_recent: int) -> None:
    prompt, turns = history()
    split = split_for_summary(turns, prompt, keep_recent)
    assert prompt in split.kept
    assert_pairs_whole(split.kept)
    assert_pairs_whole([m for m in split.old if m is not prompt])
    assert len(split.old) + len(split.kept) == len(turns)
    # The most recent units are kept verbatim, in order.
    assert split.kept[-1] is turns[-1]
    assert len(group_turns([m for m in split.kept if m is not prompt])) == min(keep_recent, 5)


class Look(BaseModel):
    page: int


async def look(args: Look, _: ToolContext) -> str:
    return f"page {args.page}: " + "lorem ipsum " * 120  # ~1,450 characters


class CostRecordingAi(AiService):
    """Records the price of every answer, by operation."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.costs: list[tuple[str, float]] = []

    async def call(self, request, context):  # type: ignore[no-untyped-def]
        response = await super().call(request, context)
        self.costs.append((str(request.operation), response.cost_chf))
        return response

    async def stream(self, request, context):  # type: ignore[no-untyped-def]
        async for event in super().stream(request, context):
            if isinstance(event, StreamDone):
                self.costs.append((str(request.operation), event.response.cost_chf))
            yield event


async def test_summarization_in_the_loop_keeps_pairs_prompt_and_counts_cost() -> None:
    pages = iter(range(1, 100))
    summaries = iter(range(1, 100))

    def step(request: AiRequest) -> ScriptedTurn:
        if request.operation == OperationType.data_analyse:
            return ScriptedTurn(text=f"SUMMARY-{next(summaries)}: pages read so far")
        page = next(pages)
        if page > 8:
            return ScriptedTurn(text="finished reading")
        return ScriptedTurn.call("look", f"c{page}", page=page)

    model = chat_model(context_window=4_000, input_price_usd_per_mtok=10.0)
    provider = ScriptedProvider([step] * 40, model_specs=[model])
    ai = CostRecordingAi([provider], settings=AiSettings())
    run_deps = deps(ai, [Tool("look", "Look at a page.", Look, look, read_only=True)])
    run_deps.settings = run_deps.settings.model_copy(update={"agent_keep_recent_turns": 2})

    result = await run_agent("read all pages", AgentConfig(), CONTEXT, run_deps)

    assert result.status == "completed", result.final_text
    summary_requests = [r for r in provider.received if r.operation == OperationType.data_analyse]
    agent_requests = [r for r in provider.received if r.operation == OperationType.agent]
    assert summary_requests, "the context never grew past the threshold"
    for request in agent_requests:
        turns = list(request.messages[1:-1])  # between the system prompt and round context
        assert turns[0].content == "read all pages"  # the prompt is never summarized away
        assert_pairs_whole(turns)
    last = agent_requests[-1]
    assert "SUMMARY-" in last.messages[-1].content  # the summary rides in the round context
    assert "page 1:" not in " ".join(m.content for m in last.messages[1:])
    # Summary calls are billed and counted in the run's cost.
    summary_cost = sum(cost for op, cost in ai.costs if op == OperationType.data_analyse)
    assert summary_cost > 0
    assert result.cost_chf == pytest.approx(sum(cost for _, cost in ai.costs), rel=1e-6)

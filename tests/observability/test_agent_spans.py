"""OpenTelemetry spans of one agent run, collected with the SDK's in-memory exporter: the tree
run → round → gateway call + tool call, GenAI attributes, and no prompt text anywhere."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext, Role
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import call, chat_model, deps, scripted
from tests.observability.conftest import children

PROMPT = "Double the secret number of Hans Muster, AHV 756.1234.5678.97"


class Count(BaseModel):
    count: int


async def double(args: Count, _: ToolContext) -> dict:
    return {"doubled": args.count * 2}


DOUBLE = Tool("double", "Double a number.", Count, double, read_only=True)


async def test_one_run_gives_run_round_gateway_and_tool_spans_without_prompt_text(
    spans: InMemorySpanExporter,
) -> None:
    model = chat_model(name="span-model")
    ai, _ = scripted(
        [ScriptedTurn.calls(call("double", "c1", count=21)), ScriptedTurn(text="It is 42.")],
        model,
    )
    context = RequestContext("user-1", "mandate-1", Role.member)
    result = await run_agent(PROMPT, AgentConfig(), context, deps(ai, [DOUBLE]))
    assert result.status == "completed"

    finished = list(spans.get_finished_spans())
    (run,) = [s for s in finished if s.name == "invoke_agent agentur"]
    assert run.parent is None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.agent.id"] == result.run_id
    assert run.attributes["agentur.run.status"] == "completed"
    rounds = children(run, finished)
    assert [s.name for s in rounds] == ["round", "round"]
    assert [s.attributes["agentur.round"] for s in rounds] == [1, 2]

    first = sorted(s.name for s in children(rounds[0], finished))
    assert first == ["chat span-model", "execute_tool double"]
    assert [s.name for s in children(rounds[1], finished)] == ["chat span-model"]
    chat = next(s for s in children(rounds[0], finished) if s.name.startswith("chat"))
    assert chat.kind is trace.SpanKind.CLIENT
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.provider.name"] == "scripted"
    assert chat.attributes["gen_ai.request.model"] == "span-model"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["gen_ai.usage.output_tokens"] >= 0
    assert chat.attributes["agentur.operation"] == "agent"
    tool = next(s for s in children(rounds[0], finished) if s.name.startswith("execute_tool"))
    assert tool.attributes["gen_ai.tool.name"] == "double"
    assert tool.attributes["gen_ai.tool.call.id"] == "c1"
    assert tool.status.is_ok

    values = [str(v) for s in finished for v in (s.attributes or {}).values()]
    for secret in ("Hans Muster", "756.1234", "It is 42", "doubled"):
        assert not any(secret in value for value in values), secret

"""Tool calls a model writes as text: recovered for models that allow it, never
taken for a final answer; one corrective message, then an honest failure."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import ROUND_CONTEXT_HEADER
from agentur.agent.events import EventType
from agentur.agent.recover_text_tool_calls import CORRECTION, FAILED_REASON
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Role
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import Recorder, chat_model, deps, scripted
from tests.ai.wire_servers import WireServer, openai_stream

CONTEXT = RequestContext("user-1", "mandate-1", UserRole.member)


class ListArgs(BaseModel):
    folder: str = "/"
    tags: list[str] = Field(default_factory=list)


async def list_files(args: ListArgs, _: ToolContext) -> dict:
    return {"folder": args.folder, "tags": args.tags, "files": ["hours.md", "prices.md"]}


LIST_FILES = Tool("list_files", "List files.", ListArgs, list_files, read_only=True)
HERMES = (
    '<tool_call>\n{"name": "list_files", "arguments": {"folder": "/docs", "tags": null}}\n'
    "</tool_call>"
)


def tool_messages(request) -> list:
    return [m for m in request.messages if m.role is Role.tool]


async def test_a_recovering_model_has_its_text_call_run_and_null_means_not_given() -> None:
    ai, provider = scripted(
        [ScriptedTurn(text=HERMES), ScriptedTurn(text="There are two files.")],
        chat_model(recover_text_tool_calls=True),
    )
    recorder = Recorder()
    result = await run_agent(
        "which files?", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]), emit=recorder
    )
    assert result.status == "completed" and result.final_text == "There are two files."
    [outcome] = recorder.of(EventType.tool_result)
    assert not outcome["is_error"]
    assert json.loads(outcome["content"])["tags"] == []  # null for an optional list: the default
    second = provider.received[1]
    assistant = [m for m in second.messages if m.role is Role.assistant][-1]
    assert [c.name for c in assistant.tool_calls] == ["list_files"] and assistant.content == ""
    assert tool_messages(second)[0].tool_call_id == assistant.tool_calls[0].id


async def test_without_recovery_a_text_call_gets_one_correction_and_the_run_goes_on() -> None:
    ai, provider = scripted(
        [
            ScriptedTurn(text='{{"name": "list_files", "arguments": {{"folder": "/"}}}}'),
            ScriptedTurn.call("list_files", "c1"),
            ScriptedTurn(text="Two files: hours.md and prices.md."),
        ]
    )
    result = await run_agent("which files?", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]))
    assert result.status == "completed"
    assert result.final_text == "Two files: hours.md and prices.md."
    # The round context (clock) rides last, marked volatile; the correction comes before it.
    corrected = [m for m in provider.received[1].messages if not m.volatile]
    assert corrected[-1].role is Role.user and corrected[-1].content == CORRECTION
    assert corrected[-2].role is Role.assistant and "list_files" in corrected[-2].content


async def test_a_text_call_after_the_correction_fails_the_run_honestly() -> None:
    raw = '```json\n{"name": "list_files", "arguments": {}}\n```'
    ai, provider = scripted([ScriptedTurn(text=raw), ScriptedTurn(text=raw)])
    result = await run_agent("which files?", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]))
    assert result.status == "failed" and result.error == FAILED_REASON
    assert "list_files" not in result.final_text  # the raw call is never the answer
    assert len(provider.received) == 2


async def test_an_unparseable_call_is_corrected_even_with_recovery_on() -> None:
    truncated = '<tool_call>{"name": "list_files", "arguments": {"folder": "/do'
    ai, provider = scripted(
        [ScriptedTurn(text=truncated), ScriptedTurn(text="Nothing to list.")],
        chat_model(recover_text_tool_calls=True),
    )
    result = await run_agent("which files?", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]))
    assert result.status == "completed" and result.final_text == "Nothing to list."
    assert [m for m in provider.received[1].messages if not m.volatile][-1].content == CORRECTION


async def test_json_that_is_not_a_call_is_a_normal_answer() -> None:
    answer = 'Here is the record: {"name": "Alice", "age": 31}'
    ai, provider = scripted([ScriptedTurn(text=answer)], chat_model(recover_text_tool_calls=True))
    result = await run_agent("make a record", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]))
    assert result.status == "completed" and result.final_text == answer
    assert len(provider.received) == 1


async def test_openai_compatible_server_text_calls_are_recovered_on_the_wire() -> None:
    # A llama.cpp-like server whose template parser missed the call: it arrives as content.
    with WireServer("llama", "/v1") as server:
        server.enqueue(
            openai_stream("<function=list_files>", '{"folder": "/docs"}', "</function>"),
            openai_stream("Two files."),
        )
        local = OpenAICompatibleServerSettings(
            openai_compatible_base_url=server.base_url, openai_compatible_models="qwen2.5-1.5b"
        )
        settings = AiSettings()
        ai = AiService(build_providers(settings, server=local), settings=settings)
        try:
            result = await run_agent("files?", AgentConfig(), CONTEXT, deps(ai, [LIST_FILES]))
        finally:
            await ai.aclose()
        assert result.status == "completed" and result.final_text == "Two files."
        # Without the round context (clock), which rides last as its own user message.
        second = [
            m
            for m in server.received[1].json["messages"]
            if not str(m.get("content") or "").startswith(ROUND_CONTEXT_HEADER)
        ]
        call = second[-2]["tool_calls"][0]
        assert call["function"]["name"] == "list_files"
        assert json.loads(call["function"]["arguments"]) == {"folder": "/docs"}
        assert second[-1]["role"] == "tool" and "hours.md" in second[-1]["content"]


async def test_null_for_a_required_argument_is_still_an_error() -> None:
    class ReadArgs(BaseModel):
        path: str

    async def read(args: ReadArgs, _: ToolContext) -> dict:
        return {"path": args.path}

    tool = Tool("read_file", "Read a file.", ReadArgs, read, read_only=True)
    ai, provider = scripted(
        [ScriptedTurn.call("read_file", "c1", path=None), ScriptedTurn(text="could not")]
    )
    await run_agent("read", AgentConfig(), CONTEXT, deps(ai, [tool]))
    [message] = tool_messages(provider.received[1])
    assert message.is_error and message.content.startswith("invalid arguments for read_file: path")

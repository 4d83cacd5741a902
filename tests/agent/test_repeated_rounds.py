"""A round made of nothing but repeated calls is named as a loop at the end of the next round's
context, with the request restated; the notice is gone again a round later."""

from __future__ import annotations

from agentur.agent.answer_problems import answer_problem
from agentur.agent.config import AgentConfig
from agentur.agent.repeated_calls import LOOP_TITLE
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Message
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from tests.agent.support import call, deps, read_tool, scripted

CONTEXT = RequestContext("u1", "m1", UserRole.member, timezone="Europe/Zurich")
REQUEST = "Wer leitet laut notes.txt das Projekt Alpenblick?"
READ = read_tool({"name": "notes.txt", "content": "Owner: Mara Keller"})
LIST = read_tool({"files": ["notes.txt"]}, name="list_files")


def _round_context(messages: tuple[Message, ...] | list[Message]) -> str:
    return messages[-1].content


async def test_a_round_of_repeats_gets_the_loop_notice_once() -> None:
    turns = [
        ScriptedTurn.calls(call("read_file", "c1")),
        ScriptedTurn.calls(call("read_file", "c2")),  # the same call, the same result
        ScriptedTurn.calls(call("list_files", "c3")),  # a new step
        ScriptedTurn(text="Mara Keller leitet es."),
    ]
    ai, provider = scripted(turns)
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ, LIST]))
    assert result.status == "completed"
    contexts = [_round_context(request.messages) for request in provider.received]
    assert [LOOP_TITLE in text for text in contexts] == [False, False, True, False]
    notice = contexts[2]
    assert "read_file" in notice and "round 1" in notice and f"«{REQUEST}»" in notice
    # the notice is the context's last section, right before its end line
    assert notice.rindex(LOOP_TITLE) > notice.rindex("## Current date and time")


async def test_a_round_with_one_new_call_is_no_loop() -> None:
    turns = [
        ScriptedTurn.calls(call("read_file", "c1")),
        ScriptedTurn.calls(call("read_file", "c2"), call("list_files", "c3")),
        ScriptedTurn(text="Mara Keller leitet es."),
    ]
    ai, provider = scripted(turns)
    await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ, LIST]))
    assert not any(LOOP_TITLE in _round_context(r.messages) for r in provider.received)


def test_an_answer_that_copies_the_notice_is_no_answer() -> None:
    copied = f"## {LOOP_TITLE}\nMara Keller leitet das Projekt."
    assert answer_problem(copied, REQUEST, {}) is not None
    assert answer_problem("Mara Keller leitet das Projekt.", REQUEST, {}) is None

"""A reply that announces a step instead of taking it gets one corrective round."""

from __future__ import annotations

import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.deferred_step import deferred_step
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from tests.agent.support import call, deps, read_tool, scripted

CONTEXT = RequestContext("u1", "m1", UserRole.member, timezone="Europe/Zurich")
NOTES = "Project Alpenblick kick-off\nBudget: CHF 48,000\nOwner: Mara Keller\n"
REQUEST = "Which files do I have? Read notes.txt and tell me its owner."
# Qwen2.5-Coder-1.5B, right after read_file had returned notes.txt
DEFERRED = (
    "To answer your question, I would need to search through the notes.txt file to find the "
    'line where "Project Alpenblick kick-off" appears. However, this file is not available '
    "for me to read directly."
)


@pytest.mark.parametrize(
    "reply",
    [
        DEFERRED,
        "Let me check notes.txt first.",
        "I'll read the file now.",
        "This file is not available for me to read.",
        "Ich müsste zuerst die Datei notes.txt durchsuchen.",
        "Je dois d'abord lire le fichier.",
        "Devo prima leggere il file.",
    ],
)
def test_announced_steps_are_found(reply: str) -> None:
    assert deferred_step(reply) is not None


@pytest.mark.parametrize(
    "reply",
    [
        "The owner of notes.txt is Mara Keller.",
        "I created summary.txt. Let me know if you need anything else.",
        "Your files hold no phone number for a Geneva branch.",
        "Das Projekt Alpenblick leitet Mara Keller; das Budget beträgt CHF 48'000.",
        "I read notes.txt: its owner is Mara Keller.",
    ],
)
def test_answers_are_not_steps(reply: str) -> None:
    assert deferred_step(reply) is None


READ = read_tool({"name": "notes.txt", "content": NOTES})


async def test_a_deferred_step_is_corrected_once() -> None:
    answer = "The owner of notes.txt is Mara Keller."
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=DEFERRED)]
    ai, provider = scripted([*turns, ScriptedTurn(text=answer)])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed" and result.final_text == answer and result.rounds == 3
    correction = [m for m in provider.received[2].messages if not m.volatile][-1]
    assert correction.role is Role.user and "I would need to search" in correction.content


async def test_the_reply_after_the_correction_is_taken() -> None:
    again = "Let me check notes.txt again."
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=DEFERRED)]
    ai, _ = scripted([*turns, ScriptedTurn(text=again)])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed" and result.final_text == again and result.rounds == 3

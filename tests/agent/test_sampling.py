"""The temperature an agent run's model calls carry: the run's own, else the setting's (0)."""

from __future__ import annotations

import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from tests.agent.support import call, deps, read_tool, scripted

CONTEXT = RequestContext("u1", "m1", UserRole.member)
READ = read_tool({"name": "notes.txt", "content": "Owner: Mara Keller"})


@pytest.mark.parametrize(
    ("configured", "settings", "sent"),
    [
        (None, {}, 0.0),  # the default: the model's likeliest call
        (0.7, {}, 0.7),  # a run's own temperature wins
        (None, {"agent_temperature": 0.4}, 0.4),
    ],
)
async def test_every_model_call_of_a_run_carries_its_temperature(
    configured: float | None, settings: dict[str, float], sent: float
) -> None:
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text="Mara Keller.")]
    ai, provider = scripted(turns)
    config = AgentConfig(temperature=configured)
    result = await run_agent("Who owns notes.txt?", config, CONTEXT, deps(ai, [READ], **settings))
    assert result.status == "completed"
    assert [r.options.temperature for r in provider.received] == [sent, sent]

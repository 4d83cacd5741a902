"""An escalation runs the ordinary agent — the same `run_agent` as the API — with the seed's
meeting configuration: a few rounds, a small budget, the core and web toolboxes, no tools
generated from workflow actions, the task as its brief, in the meeting's workflow (so its
round memory and knowledge context accumulate per meeting). The agent never speaks itself:
its final text is delivered by the session like any reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentur.agent.config import AgentConfig, ToolSet
from agentur.agent.dependencies import AgentResult
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.base import ProviderError
from agentur.errors import AgenturError
from agentur.meetings.escalation import Escalation
from agentur.meetings.events import EventHub, MeetingEventType
from agentur.meetings.records import MeetingRecord
from agentur.meetings.settings import MeetingSettings

if TYPE_CHECKING:
    from agentur.agent.settings import AgentSettings
    from agentur.runtime import Runtime

MEETING_TOOLBOXES = ["core", "web"]


def meeting_agent_config(settings: MeetingSettings, max_cost_chf: float) -> AgentConfig:
    return AgentConfig(
        max_rounds=settings.meeting_agent_max_rounds,
        max_cost_chf=max_cost_chf,
        tool_set=ToolSet.core,
        initial_toolboxes=MEETING_TOOLBOXES,
        exclude_action_tools=True,
    )


async def run_escalation(
    runtime: Runtime,
    record: MeetingRecord,
    hub: EventHub,
    agent_settings: AgentSettings,
    settings: MeetingSettings,
    escalation: Escalation,
    max_cost_chf: float,
) -> AgentResult | None:
    """The finished run (its `agent_final` event published), or None when it could not start."""
    config = meeting_agent_config(settings, max_cost_chf)
    hub.publish(
        MeetingEventType.agent_started, {"brief": escalation.brief, "source": escalation.source}
    )
    try:
        result = await run_agent(
            escalation.brief,
            config,
            record.owner_context,
            runtime.agent_dependencies(agent_settings),
            workflow_id=record.workflow_id,
        )
    except (AgenturError, ProviderError) as error:
        message = str(getattr(error, "detail", None) or error)
        hub.publish(MeetingEventType.error, {"code": "agent_failed", "message": message})
        return None
    hub.publish(
        MeetingEventType.agent_final,
        {
            "run_id": result.run_id,
            "status": result.status.value,
            "text": result.final_text,
            "rounds": result.rounds,
            "cost_chf": result.cost_chf,
        },
    )
    return result

"""The events an agent run streams: the tool loop's (agentur/tool_loop/events.py), named here
too because callers of the agent (API, CLI, meetings) subscribe to them."""

from agentur.tool_loop.events import AgentEvent, EventSink, EventType, discard_event

__all__ = ["AgentEvent", "EventSink", "EventType", "discard_event"]

"""Progressive summarization: when the conversation nears the model's window, the oldest
turns are summarized through the gateway (operation DATA_ANALYSE) and replaced by the summary.

A turn is a unit the model must see whole: an assistant message together with the results of
its tool calls (providers reject a tool result whose call is missing, and vice versa). Units
are summarized or kept as a whole, never split; the user's prompt of this run is always kept,
as are the most recent `keep_recent` units.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from agentur.ai.messages import AiRequest, AiResponse, CallOptions, Message, Role
from agentur.ai.operation_types import OperationType
from agentur.ai.service import AiService
from agentur.context import RequestContext

MAX_CHARS_PER_MESSAGE = 4_000

SUMMARY_INSTRUCTIONS = (
    "You compress the earlier part of an agent's working conversation. Write a factual summary "
    "that lets the agent continue without the original messages: what was asked, which tools "
    "were called with which key arguments, what they returned (ids, names, numbers, findings), "
    "decisions made and what remains to do. Keep every identifier exactly. No preamble."
)


def group_turns(turns: Sequence[Message]) -> list[list[Message]]:
    """Units of turns; an assistant message owns the tool results that follow it."""
    units: list[list[Message]] = []
    for message in turns:
        if message.role is Role.tool and units and units[-1][0].role is Role.assistant:
            units[-1].append(message)
        else:
            units.append([message])
    return units


@dataclass(frozen=True, slots=True)
class Split:
    old: list[Message]  # to be summarized
    kept: list[Message]  # stays verbatim, in the original order


def split_for_summary(turns: Sequence[Message], pinned: Message | None, keep_recent: int) -> Split:
    units = group_turns(turns)
    movable = [index for index, unit in enumerate(units) if unit[0] is not pinned]
    old_indexes = set(movable[: max(0, len(movable) - keep_recent)])
    old = [m for index, unit in enumerate(units) if index in old_indexes for m in unit]
    kept = [m for index, unit in enumerate(units) if index not in old_indexes for m in unit]
    return Split(old, kept)


def render_transcript(previous_summary: str, messages: Sequence[Message]) -> str:
    lines = []
    if previous_summary:
        lines.append(f"[summary of even earlier turns]\n{previous_summary}")
    for message in messages:
        text = message.content
        if len(text) > MAX_CHARS_PER_MESSAGE:
            text = text[:MAX_CHARS_PER_MESSAGE] + f" …[{len(message.content)} characters in all]"
        if message.role is Role.tool:
            lines.append(f"[tool result of {message.tool_name}] {text}")
            continue
        calls = "; ".join(
            f"{call.name}({json.dumps(call.arguments, default=str)})" for call in message.tool_calls
        )
        lines.append(f"[{message.role.value}] {text}" + (f" [calls: {calls}]" if calls else ""))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SummaryResult:
    summary: str
    kept: list[Message]
    summarized_messages: int
    response: AiResponse


async def summarize_history(
    ai: AiService,
    context: RequestContext,
    *,
    turns: Sequence[Message],
    pinned: Message | None,
    previous_summary: str,
    keep_recent: int,
    max_output_tokens: int,
    workflow_id: str | None,
) -> SummaryResult | None:
    """The new summary and the turns to keep, or None when nothing old enough exists."""
    split = split_for_summary(turns, pinned, keep_recent)
    if not split.old:
        return None
    request = AiRequest(
        operation=OperationType.data_analyse,
        messages=(
            Message.system(SUMMARY_INSTRUCTIONS),
            Message.user(render_transcript(previous_summary, split.old)),
        ),
        options=CallOptions(max_output_tokens=max_output_tokens, temperature=0.0),
        workflow_id=workflow_id,
    )
    response = await ai.call(request, context)
    return SummaryResult(response.text.strip(), split.kept, len(split.old), response)

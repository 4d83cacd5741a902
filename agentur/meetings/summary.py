"""The end of a meeting: a summary of its transcript and of what the assistant said, written
to the meeting's workflow (one `data_analyse` call; when no model can make it, a plain account
of who spoke and what was answered, so ending a meeting never fails on the model)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from agentur.ai.messages import AiRequest, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.errors import AgenturError
from agentur.meetings.records import MeetingRecord
from agentur.workflows.service import WorkflowService

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

MAX_MESSAGES = 2_000
MAX_TRANSCRIPT_CHARS = 60_000
INSTRUCTIONS = (
    "Summarize this meeting for the participants: the topics, decisions, open questions and "
    "what the assistant answered or researched. Use short bullet points, in the language the "
    "meeting was held in."
)


async def meeting_transcript(runtime: RuntimeParts, record: MeetingRecord) -> list[tuple[str, str]]:
    """(role, content) of the meeting's workflow, oldest first."""
    async with runtime.database.session() as session:
        rows, _ = await WorkflowService(session, record.owner_context).messages(
            record.workflow_id, limit=MAX_MESSAGES
        )
        return [(row.role, row.content) for row in rows]


def plain_summary(messages: list[tuple[str, str]]) -> str:
    speakers: Counter[str] = Counter()
    for role, content in messages:
        if role == "transcript":
            for line in content.splitlines():
                if "[" in line and "]" in line:
                    speakers[line.split("[", 1)[1].split("]", 1)[0]] += 1
    answers = [content for role, content in messages if role == "assistant" and content]
    said = ", ".join(f"{name} ({count})" for name, count in speakers.most_common()) or "nobody"
    lines = [f"Utterances by speaker: {said}.", f"Assistant replies: {len(answers)}."]
    lines += [f"- {answer[:300]}" for answer in answers[-10:]]
    return "\n".join(lines)


def _as_text(messages: list[tuple[str, str]]) -> str:
    parts = []
    for role, content in messages:
        label = "Transcript" if role == "transcript" else "Assistant" if role == "assistant" else ""
        if label:
            parts.append(f"{label}:\n{content}")
    return "\n\n".join(parts)[-MAX_TRANSCRIPT_CHARS:]


async def summarize_meeting(
    runtime: RuntimeParts, record: MeetingRecord, max_output_tokens: int
) -> tuple[str, float]:
    """The summary (stored in the workflow) and what making it cost."""
    messages = await meeting_transcript(runtime, record)
    cost = 0.0
    summary = ""
    if any(role == "transcript" for role, _ in messages):
        request = AiRequest(
            OperationType.data_analyse,
            (Message.system(INSTRUCTIONS), Message.user(_as_text(messages))),
            options=CallOptions(temperature=0.0, max_output_tokens=max_output_tokens),
            workflow_id=record.workflow_id,
        )
        try:
            response = await runtime.ai.call(request, record.owner_context)
            summary, cost = response.text.strip(), response.cost_chf
        except (AgenturError, ProviderError):
            summary = ""
    summary = summary or plain_summary(messages)
    async with runtime.database.transaction() as session:
        await WorkflowService(session, record.owner_context).append(
            record.workflow_id, "assistant", summary, {"meeting_summary": True}
        )
    return summary, cost

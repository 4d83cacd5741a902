"""The fast path (`meeting_reply`): one structured model call per batch of new utterances that
decides whether the assistant says something, and whether the agent is needed.

It sees the recent transcript window, the persistent operator directives (an
`OPERATOR_DIRECTIVES` block) and the session's knowledge context; its answer is validated
against `FastReply`. It answers when addressed by its wake name or asked a question it can
answer, and stays silent otherwise."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentur.ai.messages import AiRequest, CallOptions, JsonSchemaFormat, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.service import AiService
from agentur.context import RequestContext
from agentur.errors import AgenturError
from agentur.meetings.records import Directive, Utterance

MAX_REPLY_CHARS = 4_000
MAX_REASON_CHARS = 2_000


class FastReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    respond: bool = Field(description="True when the assistant should say something now.")
    text: str = Field(default="", max_length=MAX_REPLY_CHARS, description="What it says.")
    needs_agent: bool = Field(
        default=False, description="True when answering needs research or tools."
    )
    agent_reason: str = Field(
        default="",
        max_length=MAX_REASON_CHARS,
        description="The task for the agent, when needs_agent is true.",
    )


class FastReplyInvalidError(AgenturError):
    """The model's answer was not the JSON object the fast path asked for."""


@dataclass(frozen=True, slots=True)
class FastPathInput:
    wake_name: str
    languages: Sequence[str]
    window: Sequence[Utterance]  # earlier utterances, oldest first
    new: Sequence[Utterance]  # what was just said
    directives: Sequence[Directive]
    knowledge: str = ""


@dataclass(frozen=True, slots=True)
class FastPathResult:
    reply: FastReply
    cost_chf: float
    model: str
    latency_ms: float


def instructions(wake_name: str, languages: Sequence[str]) -> str:
    spoken = ", ".join(languages) if languages else "the language the participants speak"
    return (
        f"You are {wake_name}, an assistant listening to a live online meeting. You read the "
        "recent transcript and decide whether to say something now.\n"
        f"- Respond only when someone addresses you by name ({wake_name}) or asks a question "
        "you can answer from the transcript, the knowledge below or general knowledge. Stay "
        "silent (respond=false, text empty) on small talk, remarks between participants and "
        "anything not meant for you.\n"
        "- Keep spoken answers short: one to three sentences.\n"
        "- When answering needs current information from the internet, documents you do not "
        "see or several steps of work, set needs_agent=true and put the task in agent_reason "
        "(self-contained, in the meeting's language); you may set respond=true with a short "
        "holding answer.\n"
        f"- Answer in {spoken} unless an operator directive says otherwise.\n"
        "- Standing instructions from the person running the meeting assistant, when there "
        "are any, follow at the end under the operator directives heading; follow them.\n"
        'Reply with one JSON object: {"respond": bool, "text": str, "needs_agent": bool, '
        '"agent_reason": str}.'
    )


def directives_block(directives: Sequence[Directive]) -> str:
    if not directives:
        return ""
    lines = "\n".join(f"- {directive.text}" for directive in directives)
    return f"OPERATOR_DIRECTIVES (standing instructions, in force until withdrawn):\n{lines}"


def transcript_message(
    window: Sequence[Utterance], new: Sequence[Utterance], knowledge: str
) -> str:
    parts = []
    if knowledge:
        parts.append(f"KNOWLEDGE (from the meeting's allowed knowledge scopes):\n{knowledge}")
    if window:
        parts.append("EARLIER IN THE MEETING:\n" + "\n".join(u.line() for u in window))
    parts.append("JUST SAID:\n" + "\n".join(u.line() for u in new))
    return "\n\n".join(parts)


def build_request(given: FastPathInput, workflow_id: str, max_output_tokens: int) -> AiRequest:
    system = instructions(given.wake_name, given.languages)
    if block := directives_block(given.directives):
        system = f"{system}\n\n{block}"
    return AiRequest(
        OperationType.meeting_reply,
        (
            Message.system(system),
            Message.user(transcript_message(given.window, given.new, given.knowledge)),
        ),
        options=CallOptions(
            temperature=0.0,
            max_output_tokens=max_output_tokens,
            response_format=JsonSchemaFormat(
                FastReply.model_json_schema(), name="meeting_reply", strict=None
            ),
        ),
        workflow_id=workflow_id,
    )


def parse_reply(text: str) -> FastReply:
    # Some models wrap JSON in a Markdown fence even when asked for JSON.
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    raw = fenced.group(1) if fenced else text
    try:
        reply = FastReply.model_validate(json.loads(raw))
    except (json.JSONDecodeError, ValidationError) as error:
        raise FastReplyInvalidError(
            f"the fast path's answer is not a valid meeting_reply object: {error}"
        ) from error
    if reply.respond and not reply.text.strip() and not reply.needs_agent:
        reply = reply.model_copy(update={"respond": False})  # nothing to say is silence
    if reply.needs_agent and not reply.agent_reason.strip():
        raise FastReplyInvalidError("the fast path asked for the agent without a reason")
    return reply


async def fast_reply(
    ai: AiService,
    given: FastPathInput,
    context: RequestContext,
    *,
    workflow_id: str,
    max_output_tokens: int,
) -> FastPathResult:
    """One gateway call (neutralized, budget-checked and billed to the meeting's workflow)."""
    response = await ai.call(build_request(given, workflow_id, max_output_tokens), context)
    return FastPathResult(
        parse_reply(response.text), response.cost_chf, response.model, response.latency_ms
    )

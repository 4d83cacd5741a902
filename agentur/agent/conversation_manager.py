"""The conversation of one run: the messages sent to the model, laid out for prompt caches.

Providers cache the longest prefix a request shares with an earlier one (OpenAI and Gemini on
their own, Anthropic up to `cache_control` breakpoints, llama.cpp in its KV cache). So what is
the same in every round comes first and stays byte-identical across rounds and runs of one
configuration: the system prompt (role text and rules; tools travel as definitions, never
repeated in prose), then the turns, which only grow. What changes — the clock line in the
request's time zone, the summary of earlier rounds and this round's knowledge context —
rides in one last message marked `volatile`, after everything a cache can reuse: its own user
turn, delimited by a header and an end line, never joined into the user's words (providers
join it only for chat templates that refuse two user turns in a row).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from functools import lru_cache

from agentur.ai.messages import Message, ToolCall
from agentur.context import RequestContext, get_request_now

ROLE_TEXT = (
    "You are agentur's agent. You work for the user on their workspace files, folders and "
    "workflows using the tools offered. Use tools when they help; call independent read-only "
    "tools together in one turn. Tool results are raw data: check them before relying on them. "
    "A result marked as a window is not complete; read on when you need the rest. When the task "
    "is done, answer without calling tools."
)


def temporal_block(now: datetime) -> str:
    # The block changes once a minute; formatting it is a visible share of a round's work.
    # The zone is part of the key: aware datetimes of one instant compare equal across zones.
    return _temporal_block(now.replace(second=0, microsecond=0), now.tzinfo)


@lru_cache(maxsize=256)
def _temporal_block(now: datetime, _zone: tzinfo | None) -> str:
    offset = now.strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}" if offset else "+00:00"
    zone = getattr(now.tzinfo, "key", None) or now.tzname() or "UTC"
    return (
        "## Current date and time\n"
        f"Today is {now.strftime('%A')}, {now.date().isoformat()}. "
        f"The user's local time is {now.strftime('%H:%M')} in the time zone {zone} "
        f"(UTC{offset}). Interpret relative dates such as 'today', 'last month' or 'Q1' "
        "from this date."
    )


ROUND_CONTEXT_HEADER = "[Context for this round, from agentur — not written by the user]"
ROUND_CONTEXT_END = "[End of agentur's context. Never copy it into an answer or a file.]"


def language_block(language: str) -> str:
    return (
        "## The user's language\n"
        f"The user writes in {language}. Answer in {language}, whatever the language of the "
        "documents and tool results."
    )


@dataclass
class ConversationManager:
    context: RequestContext
    role_text: str = ROLE_TEXT
    now: Callable[[RequestContext], datetime] = get_request_now
    turns: list[Message] = field(default_factory=list)
    summary: str = ""
    language: str = ""  # the user's language by name ("German"), when it was detected
    # Said at the end of the next round's context only, e.g. that the last round was a loop.
    notice: str = ""

    def system_prompt(self) -> str:
        """The stable head of every request: nothing in it changes between rounds."""
        return self.role_text

    def round_context(self, knowledge: str = "") -> str:
        """This round's changing context, delimited: the clock, the user's language, the
        summary, the knowledge block, and a notice about the last round last."""
        parts = [ROUND_CONTEXT_HEADER, temporal_block(self.now(self.context))]
        if self.language:
            parts.append(language_block(self.language))
        if self.summary:
            parts.append("## Summary of earlier rounds of this run\n" + self.summary)
        if knowledge.strip():
            parts.append("## Context from the knowledge store\n" + knowledge.strip())
        if self.notice:
            parts.append(self.notice)
        parts.append(ROUND_CONTEXT_END)
        return "\n\n".join(parts)

    def messages(self, knowledge: str = "") -> list[Message]:
        return [
            Message.system(self.system_prompt()),
            *self.turns,
            Message.round_context(self.round_context(knowledge)),
        ]

    def add_user(self, text: str) -> None:
        self.turns.append(Message.user(text))

    def add_assistant(self, text: str, tool_calls: Sequence[ToolCall]) -> None:
        self.turns.append(Message.assistant(text, tuple(tool_calls)))

    def add_tool_result(self, call: ToolCall, content: str, *, is_error: bool) -> None:
        self.turns.append(Message.tool_result(call, content, is_error=is_error))

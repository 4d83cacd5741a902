"""Basic reply: one chat call, no tools, streamed — for greetings and small talk only
(classify_intent sends factual questions elsewhere, since this answer has no sources). Without
a chat model the runtime greets with a fixed sentence."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentur.ai.messages import AiRequest, Message, StreamDone, TextDelta
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.events import TurnEvent, chunk
from agentur.assistant.phrases import phrase
from agentur.context import RequestContext
from agentur.errors import AgenturError

# A second guard besides routing: this reply has no sources, so it must not state facts.
SMALL_TALK = (
    "This is small talk: greet or thank back. Do not state facts about the business (opening "
    "hours, prices, policies); offer to answer questions about them instead."
)


async def basic_reply(
    ai: AiService | None,
    context: RequestContext,
    instructions: str,
    message: str,
    language: str,
    parts: list[str],
) -> AsyncIterator[TurnEvent]:
    """Yields chunks; appends the answer text to `parts` (also the fallback's)."""
    if ai is not None:
        request = AiRequest(
            operation=OperationType.data_generate,
            messages=(
                Message.system(
                    f'{instructions}\n{SMALL_TALK}\nReply briefly in language "{language}".'
                ),
                Message.user(message),
            ),
        )
        streamed: list[str] = []
        try:
            async for event in ai.stream(request, context):
                if isinstance(event, TextDelta) and event.text:
                    streamed.append(event.text)
                    yield chunk(event.text)
                elif isinstance(event, StreamDone):
                    break
            parts.extend(streamed)
            return
        except (AgenturError, ProviderError):
            if streamed:  # part of an answer went out; do not add a second one
                parts.extend(streamed)
                return
    text = phrase("greeting", language)
    parts.append(text)
    yield chunk(text)

"""Basic reply (S3): one chat call, no tools, streamed. Without a chat model the runtime greets
with a fixed sentence (the router only picks this action for greetings and thanks)."""

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
                Message.system(f'{instructions}\nReply briefly in language "{language}".'),
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

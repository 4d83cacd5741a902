"""One streaming attempt on one model: the provider's events with placeholders re-identified
as they pass (text and tool-call arguments), and the final response billed before `StreamDone`
reaches the caller. Time limits are the HTTP transport's (first token, then idle)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from agentur.ai.messages import AiResponse, StreamDone, StreamEvent, TextDelta, ToolCallDelta
from agentur.ai.model_kinds import stream_model
from agentur.ai.model_spec import ModelSpec
from agentur.ai.neutralization.gate import StreamReidentifier
from agentur.ai.neutralization.request_gate import PreparedRequest
from agentur.ai.providers.base import ErrorKind, ModelProvider, ProviderError

Finish = Callable[[AiResponse], Awaitable[AiResponse]]


async def stream_attempt(
    provider: ModelProvider,
    spec: ModelSpec,
    prepared: PreparedRequest,
    *,
    finish: Finish,
) -> AsyncIterator[StreamEvent]:
    mapping = prepared.mapping
    text = StreamReidentifier(mapping) if mapping is not None else None
    arguments: dict[int, StreamReidentifier] = {}
    events = stream_model(provider, spec, prepared.sent).__aiter__()
    try:
        while True:
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                raise ProviderError(
                    "the stream ended without a final response",
                    provider=spec.provider,
                    model=spec.name,
                    retryable=True,
                    kind=ErrorKind.stream_broken,
                ) from None
            if isinstance(event, TextDelta):
                piece = text.feed(event.text) if text is not None else event.text
                if piece:
                    yield TextDelta(piece)
            elif isinstance(event, ToolCallDelta):
                if mapping is not None:
                    reid = arguments.setdefault(
                        event.index, StreamReidentifier(mapping, json_text=True)
                    )
                    event = replace(event, arguments_delta=reid.feed(event.arguments_delta))
                yield event
            elif isinstance(event, StreamDone):
                if text is not None and (rest := text.flush()):
                    yield TextDelta(rest)
                yield StreamDone(await finish(event.response))
                return
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            await closer()

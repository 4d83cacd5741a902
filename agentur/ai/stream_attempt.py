"""One streaming attempt on one model: the provider's events with placeholders re-identified
as they pass (text and tool-call arguments), and the final response billed before `StreamDone`
reaches the caller. Time limits are the HTTP transport's (first token, then idle). A reply
caught in a loop is stopped there (`repeated_output`), with finish reason `repetition`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from agentur.ai.billing.pricing import estimate_prompt_tokens, estimate_tokens
from agentur.ai.messages import (
    REPETITION,
    AiResponse,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from agentur.ai.model_kinds import stream_model
from agentur.ai.model_spec import ModelSpec
from agentur.ai.neutralization.gate import StreamReidentifier
from agentur.ai.neutralization.request_gate import PreparedRequest
from agentur.ai.providers.base import ErrorKind, ModelProvider, ProviderError, model_reply
from agentur.ai.providers.tool_arguments import RAW_ARGUMENTS_KEY, ToolCallAssembler
from agentur.ai.repeated_output import RepeatedOutput

Finish = Callable[[AiResponse], Awaitable[AiResponse]]


async def stream_attempt(
    provider: ModelProvider,
    spec: ModelSpec,
    prepared: PreparedRequest,
    *,
    finish: Finish,
    loop_window: int = 0,
) -> AsyncIterator[StreamEvent]:
    """`loop_window`: the characters a loop must fill before the reply is stopped (0: never)."""
    mapping = prepared.mapping
    text = StreamReidentifier(mapping) if mapping is not None else None
    arguments: dict[int, StreamReidentifier] = {}
    watch = _LoopWatch(loop_window)
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
                looping = watch.text(event.text)
                piece = text.feed(event.text) if text is not None else event.text
                if piece:
                    yield TextDelta(piece)
            elif isinstance(event, ToolCallDelta):
                looping = watch.call(event)
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
            else:
                looping = False
            if looping:
                if text is not None and (rest := text.flush()):
                    yield TextDelta(rest)
                yield StreamDone(await finish(watch.stopped_reply(spec, prepared)))
                return
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            await closer()


class _LoopWatch:
    """What one attempt generated so far, watched for a loop in the text and in each tool
    call's arguments; the reply to report when it is stopped."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.started = time.perf_counter()
        self.reply_text = RepeatedOutput(window)
        self.arguments: dict[int, RepeatedOutput] = {}
        self.calls = ToolCallAssembler()

    def text(self, piece: str) -> bool:
        return self.window > 0 and self.reply_text.feed(piece)

    def call(self, delta: ToolCallDelta) -> bool:
        if self.window <= 0:
            return False
        self.calls.add(delta.index, delta.id, delta.name, delta.arguments_delta)
        watched = self.arguments.setdefault(delta.index, RepeatedOutput(self.window))
        return watched.feed(delta.arguments_delta)

    def stopped_reply(self, spec: ModelSpec, prepared: PreparedRequest) -> AiResponse:
        """The text up to the loop and the calls whose arguments are complete (the looping
        call's are not). The provider reports no usage for a stream cut short, so it is
        estimated: the prompt as sent, and everything generated, the loop included."""
        generated = self.reply_text.text + "".join(a.text for a in self.arguments.values())
        usage = Usage(estimate_prompt_tokens(prepared.sent), estimate_tokens(generated))
        calls = [c for c in self.calls.calls() if RAW_ARGUMENTS_KEY not in c.arguments]
        return model_reply(
            spec.provider,
            spec,
            self.started,
            self.reply_text.kept(),
            usage,
            tool_calls=calls,
            finish_reason=REPETITION,
        )

"""A chat completion answered by one gateway model: the request goes through `AiService`
(neutralization, budget, retries, fallback, billing) and comes back in OpenAI's format,
tool calls included, whole or as stream chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agentur.ai.messages import AiRequest, StreamDone, StreamEvent, TextDelta, ToolCallDelta
from agentur.ai.model_spec import ModelSpec
from agentur.ai.service import AiService
from agentur.ai.stream_error import StreamError
from agentur.api.openai_compatible.gateway_models import native
from agentur.api.openai_compatible.parameters import check_gateway_model
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.openai_compatible.to_ai_request import to_ai_request
from agentur.api.openai_compatible.wire_format import DONE, Completion, finish_reason
from agentur.context import RequestContext


def _request(ai: AiService, body: ChatCompletionRequest, spec: ModelSpec) -> AiRequest:
    check_gateway_model(body, spec, native(ai, spec))
    return to_ai_request(body, spec.id)


async def complete(
    ai: AiService, body: ChatCompletionRequest, spec: ModelSpec, context: RequestContext
) -> dict[str, Any]:
    response = await ai.call(_request(ai, body, spec), context)
    completion = Completion(spec.id)
    return completion.whole(
        response.text, response.tool_calls, response.finish_reason, response.usage
    )


async def stream(
    ai: AiService, body: ChatCompletionRequest, spec: ModelSpec, context: RequestContext
) -> AsyncIterator[str]:
    """The chunks; the first event is awaited before this returns, so a request the gateway
    refuses (no model, budget, blocked) still becomes an HTTP error, not a broken stream."""
    events = ai.stream(_request(ai, body, spec), context)
    first = await anext(events)
    completion = Completion(spec.id)

    async def chunks() -> AsyncIterator[str]:
        try:
            yield completion.role()
            event: StreamEvent | StreamError | None = first
            while event is not None:
                if isinstance(event, TextDelta):
                    yield completion.text(event.text)
                elif isinstance(event, ToolCallDelta):
                    yield completion.tool_call(
                        event.index, event.id, event.name, event.arguments_delta
                    )
                elif isinstance(event, StreamError):
                    yield completion.error(event.message)
                    break
                elif isinstance(event, StreamDone):
                    response = event.response
                    yield completion.finish(
                        finish_reason(response.finish_reason, bool(response.tool_calls))
                    )
                    if body.include_usage:
                        yield completion.usage(response.usage)
                    break
                event = await anext(events, None)
            yield DONE
        finally:
            # Also when the client went away: the provider's stream closes and the budget
            # held for this call is released.
            await events.aclose()

    return chunks()

"""How a tool reaches a model: through the run's AI gateway (selection, neutralization, billing,
retries), never a provider directly — and with an error that names the missing setting when no
configured provider can serve the operation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentur.ai.gateway_errors import NoModelError
from agentur.ai.messages import AiRequest, AiResponse, AudioInput, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.errors import AgenturError
from agentur.tools.tool import ToolContext


class ProviderMissingError(AgenturError, status_code=503, title="No provider configured"):
    pass


async def call_gateway(context: ToolContext, request: AiRequest, missing: str) -> AiResponse:
    """`request` through the gateway; `missing` says what to configure when nothing fits."""
    ai = getattr(context.runtime, "ai", None)
    if ai is None:
        raise ProviderMissingError("this run has no AI gateway")
    try:
        return await ai.call(request, context.request)
    except NoModelError as error:
        raise ProviderMissingError(f"{missing} ({error.detail})") from error


async def ask_model(
    context: ToolContext,
    operation: OperationType,
    messages: Sequence[Message],
    missing: str,
    *,
    audio: AudioInput | None = None,
    **options: Any,
) -> AiResponse:
    """One call of `operation` for the run's workflow, `options` being `CallOptions` fields,
    through `call_gateway`."""
    request = AiRequest(
        operation,
        tuple(messages),
        options=CallOptions(**options),
        workflow_id=context.workflow_id,
        audio=audio,
    )
    return await call_gateway(context, request, missing)

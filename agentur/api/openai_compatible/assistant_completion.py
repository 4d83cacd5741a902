"""`assistant:<id>`: a visitor turn of one of the mandate's assistants as a chat completion.

Each completion is one new conversation with the last user message as the visitor's text (the
assistant keeps its own state per conversation; earlier client messages are not replayed).
The answer text is returned or streamed as it is written; the turn reports no token counts,
so `usage` is zero (billing happens in the gateway as for every turn)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agentur.ai.messages import Usage
from agentur.api.openai_compatible.errors import OpenAIError, model_not_found
from agentur.api.openai_compatible.parameters import check_assistant
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.openai_compatible.wire_format import DONE, Completion
from agentur.assistant.assistant_store import AssistantStore
from agentur.assistant.conversation_access import ConversationAccess
from agentur.assistant.conversation_service import ConversationService
from agentur.assistant.credentials_box import CredentialsBox
from agentur.assistant.events import TurnEvent
from agentur.context import RequestContext
from agentur.errors import NotFoundError
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant

PREFIX = "assistant:"
MAX_LISTED = 1_000


def model_id(assistant_id: str) -> str:
    return f"{PREFIX}{assistant_id}"


def assistant_id(model: str) -> str | None:
    """The assistant a model id names, or None for any other model."""
    if not model.startswith(PREFIX):
        return None
    return model.removeprefix(PREFIX) or None


async def assistants(runtime: Runtime, context: RequestContext) -> list[Assistant]:
    async with runtime.database.session() as session:
        return await AssistantStore(session, context.mandate_id).list(MAX_LISTED, 0)


async def _turn(
    runtime: Runtime, body: ChatCompletionRequest, assistant: str, context: RequestContext
) -> AsyncIterator[TurnEvent]:
    check_assistant(body, body.model)
    last = body.messages[-1]
    if last.role != "user":
        raise OpenAIError(400, "an assistant needs a user message last", param="messages")
    settings = runtime.all_settings.assistant
    box = CredentialsBox.from_settings(
        runtime.settings.assistant_secret_key, runtime.settings.data_dir
    )
    service = ConversationService(
        runtime, settings, getattr(runtime, "ai", None), context, box, ConversationAccess()
    )
    try:
        started = await service.start(assistant)
    except NotFoundError as error:
        raise model_not_found(body.model) from error
    return service.send(assistant, started["id"], last.text)


async def complete(
    runtime: Runtime, body: ChatCompletionRequest, assistant: str, context: RequestContext
) -> dict[str, Any]:
    answer = ""
    async for event in await _turn(runtime, body, assistant, context):
        if event.type == "final":
            answer = event.data["answer"]
    return Completion(body.model).whole(answer, (), "stop", Usage())


async def stream(
    runtime: Runtime, body: ChatCompletionRequest, assistant: str, context: RequestContext
) -> AsyncIterator[str]:
    events = await _turn(runtime, body, assistant, context)
    first = await anext(events)  # lookups and input checks fail here, as an HTTP error
    completion = Completion(body.model)

    async def chunks() -> AsyncIterator[str]:
        try:
            yield completion.role()
            event: TurnEvent | None = first
            while event is not None:
                if event.type == "chunk":
                    yield completion.text(event.data["text"])
                event = await anext(events, None)
            yield completion.finish("stop")
            if body.include_usage:
                yield completion.usage(Usage())
            yield DONE
        finally:
            await events.aclose()  # a client that went away ends the turn here

    return chunks()

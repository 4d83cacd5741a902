"""One narrow interface per kind of model. A provider implements the kinds it offers, nothing
more: a search engine only `search`, the on-device embedder only `embed`, OpenAI chat,
embeddings, speech, transcription and images. The gateway calls the kind a request's operation
asks for (`call_model`, `stream_model`); a provider without it refuses the call as unsupported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import cache
from typing import Protocol, runtime_checkable

from agentur.ai.messages import AiRequest, AiResponse, StreamDone, StreamEvent, TextDelta
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, ModelProvider, ProviderError


@runtime_checkable
class ChatModels(Protocol):
    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """One chat call. `cost_chf` is left 0; the gateway prices it."""
        ...

    def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        """Text and tool-call deltas, then one StreamDone with the whole response."""
        ...


@runtime_checkable
class EmbeddingModels(Protocol):
    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        """Vectors for `texts` and the input tokens billed."""
        ...


@runtime_checkable
class WebSearchModels(Protocol):
    async def search(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """Results for the request's last user message, as text with `sources`."""
        ...


@runtime_checkable
class SpeechModels(Protocol):
    async def speak(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """The user messages' text as audio (`AiResponse.audio`)."""
        ...


@runtime_checkable
class TranscriptionModels(Protocol):
    async def transcribe(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """The text of `request.audio`."""
        ...


@runtime_checkable
class ImageModels(Protocol):
    async def generate_image(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """An image for the user messages' prompt (`AiResponse.images`)."""
        ...


def offers(provider: ModelProvider, kind: type) -> bool:
    """Whether `provider` implements the protocol `kind` (its class, once per class: a protocol
    check costs ~10 µs, once per model call otherwise)."""
    return _class_offers(type(provider), kind)


@cache
def _class_offers(cls: type, kind: type) -> bool:
    return issubclass(cls, kind)


def _unsupported(provider: ModelProvider, model: ModelSpec, what: str) -> ProviderError:
    return ProviderError(
        f"{what} is not supported",
        provider=provider.name,
        model=model.name,
        kind=ErrorKind.unsupported,
    )


async def call_model(provider: ModelProvider, model: ModelSpec, request: AiRequest) -> AiResponse:
    """The whole reply of the kind `request.operation` asks for. A search engine answers any
    other text request by searching (it is asked by name, e.g. on the OpenAI-compatible API)."""
    operation = str(request.operation)
    if operation == "speech_to_text":
        if offers(provider, TranscriptionModels):
            return await provider.transcribe(model, request)
        raise _unsupported(provider, model, "speech to text")
    if operation == "text_to_speech":
        if offers(provider, SpeechModels):
            return await provider.speak(model, request)
        raise _unsupported(provider, model, "text to speech")
    if operation == "image_generate":
        if offers(provider, ImageModels):
            return await provider.generate_image(model, request)
        raise _unsupported(provider, model, "image generation")
    if offers(provider, WebSearchModels) and (
        operation == "web_search" or not offers(provider, ChatModels)
    ):
        return await provider.search(model, request)
    if offers(provider, ChatModels):
        return await provider.complete(model, request)
    raise _unsupported(provider, model, "chat")


async def embed_model(
    provider: ModelProvider, model: ModelSpec, texts: list[str]
) -> tuple[list[list[float]], int]:
    if offers(provider, EmbeddingModels):
        return await provider.embed(model, texts)
    raise _unsupported(provider, model, "embedding")


def stream_model(
    provider: ModelProvider, model: ModelSpec, request: AiRequest
) -> AsyncIterator[StreamEvent]:
    """Chat streams as the provider sends it; a reply that arrives whole (search results,
    speech, images) as one delta and its end, which keeps the stream contract."""
    if offers(provider, ChatModels) and str(request.operation) not in WHOLE_REPLIES:
        return provider.stream(model, request)
    return _whole(provider, model, request)


async def _whole(
    provider: ModelProvider, model: ModelSpec, request: AiRequest
) -> AsyncIterator[StreamEvent]:
    response = await call_model(provider, model, request)
    yield TextDelta(response.text)
    yield StreamDone(response)


# Operations whose reply a provider gives whole, never streamed.
WHOLE_REPLIES = frozenset({"speech_to_text", "text_to_speech", "image_generate"})

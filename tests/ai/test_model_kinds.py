"""The gateway calls the kind of model a request asks for, and a provider offers only its kinds:
a call of a kind the provider lacks is refused as unsupported, a search engine answers any text
request by searching, and a reply that comes whole streams as one delta and its end."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentur.ai.messages import AiRequest, AiResponse, StreamDone, TextDelta, Usage
from agentur.ai.model_kinds import (
    ChatModels,
    EmbeddingModels,
    ImageModels,
    SpeechModels,
    TranscriptionModels,
    WebSearchModels,
    call_model,
    embed_model,
    stream_model,
)
from agentur.ai.model_spec import ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ErrorKind, ProviderError, model_reply
from agentur.ai.providers.local_embedding import LocalEmbeddingProvider
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.providers.perplexity import PerplexityProvider
from agentur.ai.providers.tavily import TavilyProvider
from tests.ai.providers.helpers import ask, collect, spec

MODEL = spec("engine", "search")


class SearchEngine:
    """Offers web search only."""

    name = "engine"

    def __init__(self) -> None:
        self.searched: list[str] = []

    def models(self) -> list[ModelSpec]:
        return [MODEL]

    async def search(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        self.searched.append(request.messages[-1].content)
        return model_reply(self.name, model, 0.0, f"results for {self.searched[-1]}", Usage(1, 2))


def asking(operation: OperationType, text: str = "Alps") -> AiRequest:
    return replace(ask(text), operation=operation)


def test_each_adapter_offers_only_its_kinds() -> None:
    openai = OpenAIProvider(api_key="k", models=[])
    kinds = (ChatModels, EmbeddingModels, SpeechModels, TranscriptionModels, ImageModels)
    assert all(isinstance(openai, kind) for kind in kinds)
    assert not isinstance(openai, WebSearchModels)
    tavily = TavilyProvider(api_key="k", models=[])
    assert isinstance(tavily, WebSearchModels) and not isinstance(tavily, ChatModels)
    assert not isinstance(tavily, EmbeddingModels)
    local = LocalEmbeddingProvider()
    assert isinstance(local, EmbeddingModels) and not isinstance(local, ChatModels)
    perplexity = PerplexityProvider(api_key="k", models=[])
    assert isinstance(perplexity, ChatModels) and not isinstance(perplexity, SpeechModels)


@pytest.mark.parametrize(
    ("operation", "what"),
    [
        (OperationType.text_to_speech, "text to speech"),
        (OperationType.speech_to_text, "speech to text"),
        (OperationType.image_generate, "image generation"),
    ],
)
async def test_a_kind_the_provider_lacks_is_refused_as_unsupported(
    operation: OperationType, what: str
) -> None:
    engine = SearchEngine()
    with pytest.raises(ProviderError, match=f"{what} is not supported") as error:
        await call_model(engine, MODEL, asking(operation))
    assert error.value.kind is ErrorKind.unsupported and not error.value.retryable
    with pytest.raises(ProviderError, match="embedding is not supported"):
        await embed_model(engine, MODEL, ["x"])
    assert engine.searched == []


async def test_a_search_engine_answers_a_search_and_any_text_request_by_searching() -> None:
    engine = SearchEngine()
    found = await call_model(engine, MODEL, asking(OperationType.web_search, "Alps"))
    asked = await call_model(engine, MODEL, asking(OperationType.data_generate, "Jura"))
    assert (found.text, asked.text) == ("results for Alps", "results for Jura")
    assert found.provider == "engine" and found.model == MODEL.id and found.cost_chf == 0.0


async def test_a_whole_reply_streams_as_one_delta_and_its_end() -> None:
    events = await collect(stream_model(SearchEngine(), MODEL, asking(OperationType.web_search)))
    assert [type(event) for event in events] == [TextDelta, StreamDone]
    assert events[0].text == "results for Alps" == events[1].response.text  # type: ignore[union-attr]

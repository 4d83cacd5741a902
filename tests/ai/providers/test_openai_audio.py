"""The OpenAI audio wire formats against a local server: multipart /audio/transcriptions and
JSON /audio/speech, and the selector's audio operations."""

from __future__ import annotations

import httpx
import pytest

from agentur.ai.gateway_errors import NoModelError
from agentur.ai.messages import AiRequest, AudioInput, CallOptions, Message, SpeechOptions, Usage
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role
from tests.ai.providers.helpers import spec
from tests.ai.wire_servers import (
    WireServer,
    form_fields,
    openai_error,
    openai_speech,
    openai_transcription,
)

STT = ModelSpec("openai", "gpt-4o-mini-transcribe", frozenset({Capability.speech_to_text}))
TTS = ModelSpec("openai", "gpt-4o-mini-tts", frozenset({Capability.text_to_speech}))
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(range(64))


def provider(server: WireServer, client: httpx.AsyncClient) -> OpenAIProvider:
    return OpenAIProvider(
        client=client, api_key="sk-audio", base_url=server.base_url, models=[STT, TTS]
    )


def transcription_request(language: str | None = "de") -> AiRequest:
    return AiRequest(
        OperationType.speech_to_text,
        (),
        options=CallOptions(speech=SpeechOptions(language=language)),
        audio=AudioInput(WAV, "memo.wav", "audio/wav"),
    )


async def test_transcription_sends_the_file_as_multipart_and_reads_text_and_usage(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    openai_server.enqueue(
        openai_transcription("Guten Tag zusammen.", input_tokens=120),
        openai_transcription("Hello."),
    )
    adapter = provider(openai_server, http_client)
    response = await adapter.transcribe(STT, transcription_request())
    received = openai_server.last
    assert received.path == "/v1/audio/transcriptions"
    assert received.headers["authorization"] == "Bearer sk-audio"
    assert received.headers["content-type"].startswith("multipart/form-data")
    fields = form_fields(received)
    assert fields["file"] == ("memo.wav", WAV)
    assert fields["model"][1] == b"gpt-4o-mini-transcribe"
    assert fields["language"][1] == b"de" and fields["response_format"][1] == b"json"
    assert response.text == "Guten Tag zusammen."
    assert response.usage == Usage(120, len("Guten Tag zusammen.") // 4)
    plain = await adapter.transcribe(STT, transcription_request(language=None))
    assert "language" not in form_fields(openai_server.last)
    assert plain.text == "Hello." and plain.usage.output_tokens > 0


async def test_speech_posts_json_and_returns_the_audio_bytes(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    openai_server.enqueue(openai_speech(b"ID3mp3-bytes"), openai_error(400, "bad voice"))
    request = AiRequest(
        OperationType.text_to_speech,
        (Message.user("Grüezi mitenand"),),
        options=CallOptions(speech=SpeechOptions(voice="nova", format="wav")),
    )
    adapter = provider(openai_server, http_client)
    response = await adapter.speak(TTS, request)
    assert openai_server.last.path == "/v1/audio/speech"
    assert openai_server.last.json == {
        "model": "gpt-4o-mini-tts",
        "input": "Grüezi mitenand",
        "voice": "nova",
        "response_format": "wav",
    }
    assert response.audio == b"ID3mp3-bytes" and response.text == ""
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    with pytest.raises(ProviderError, match="bad voice") as error:
        await adapter.speak(TTS, request)
    assert error.value.status_code == 400


async def test_audio_operations_select_only_audio_models(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    chat_only = OpenAIProvider(
        client=http_client,
        api_key="k",
        base_url=openai_server.base_url,
        models=[spec("openai", "gpt-4.1")],
    )
    context = RequestContext("u", "m", Role.member)
    with pytest.raises(NoModelError, match="speech_to_text"):
        await AiService([chat_only], settings=AiSettings()).call(transcription_request(), context)
    assert openai_server.received == []

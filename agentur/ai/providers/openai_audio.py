"""The OpenAI audio wire formats (also spoken by OpenAI-compatible servers): multipart
`POST /audio/transcriptions` for `speech_to_text`, JSON `POST /audio/speech` (audio bytes back)
for `text_to_speech`."""

from __future__ import annotations

import time

from agentur.ai.messages import AiRequest, AiResponse, Role, Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, model_reply
from agentur.ai.providers.http_transport import HttpTransport
from agentur.ai.providers.scripted import estimate_tokens

DEFAULT_VOICE = "alloy"
# /audio/speech reports no usage. OpenAI prices gpt-4o-mini-tts output at ~1,250 audio tokens a
# minute, and a minute of speech is ~1,000 characters: ~1.25 output tokens per character.
AUDIO_TOKENS_PER_CHAR = 1.25


async def transcribe(transport: HttpTransport, model: ModelSpec, request: AiRequest) -> AiResponse:
    started = time.perf_counter()
    audio = request.audio
    if audio is None:
        raise transport.fail(ErrorKind.bad_request, "no audio to transcribe", model=model.name)
    fields = {"model": model.name, "response_format": "json"}
    speech = request.options.speech
    if speech and speech.language:
        fields["language"] = speech.language
    response = await transport.post(
        "/audio/transcriptions",
        model=model.name,
        data=fields,
        files={"file": (audio.file_name, audio.data, audio.mime_type)},
    )
    body = transport.decode(response.content, model=model.name)
    text = str(body.get("text", "")) if isinstance(body, dict) else ""
    usage = body.get("usage") if isinstance(body, dict) else None
    if isinstance(usage, dict) and "input_tokens" in usage:
        counted = Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
    else:  # whisper-style servers report seconds or nothing
        counted = Usage(0, estimate_tokens(text))
    return model_reply(model.provider, model, started, text, counted)


async def speak(transport: HttpTransport, model: ModelSpec, request: AiRequest) -> AiResponse:
    started = time.perf_counter()
    text = "\n\n".join(m.content for m in request.messages if m.role == Role.user and m.content)
    if not text:
        raise transport.fail(ErrorKind.bad_request, "no text to speak", model=model.name)
    speech = request.options.speech
    payload = {
        "model": model.name,
        "input": text,
        "voice": (speech.voice if speech else None) or DEFAULT_VOICE,
        "response_format": speech.format if speech else "mp3",
    }
    response = await transport.post("/audio/speech", model=model.name, json=payload)
    usage = Usage(estimate_tokens(text), round(len(text) * AUDIO_TOKENS_PER_CHAR))
    return model_reply(model.provider, model, started, "", usage, audio=response.content)

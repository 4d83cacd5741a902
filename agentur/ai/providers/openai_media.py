"""Speech, transcription and images in OpenAI's wire format: the kinds OpenAI offers beside
chat and embeddings, and servers that copy its audio and image routes with it."""

from __future__ import annotations

from agentur.ai.messages import AiRequest, AiResponse
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers import openai_audio, openai_images
from agentur.ai.providers.http_transport import HttpTransport


class OpenAIMediaModels:
    """Mixed into an OpenAI-format adapter: `SpeechModels`, `TranscriptionModels` and
    `ImageModels` (agentur.ai.model_kinds) over the adapter's transport."""

    transport: HttpTransport

    async def transcribe(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        return await openai_audio.transcribe(self.transport, model, request)

    async def speak(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        return await openai_audio.speak(self.transport, model, request)

    async def generate_image(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        return await openai_images.generate_image(self.transport, model, request)

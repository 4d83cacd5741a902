"""`text_to_speech`: a text spoken through the gateway's `text_to_speech` operation
(OpenAI `/audio/speech` wire format), stored as a workspace audio file."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from agentur.ai.messages import Message, SpeechOptions
from agentur.ai.operation_types import OperationType
from agentur.errors import AgenturError
from agentur.tools.gateway_call import ask_model
from agentur.tools.speech_to_text import MISSING_AUDIO_PROVIDER
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import store_file
from agentur.tools.workspace_files import describe

AudioFormat = Literal["mp3", "opus", "aac", "flac", "wav"]
MIME_TYPES = {
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "wav": "audio/wav",
}
MAX_CHARS = 4_096  # what /audio/speech accepts in one call


class TextToSpeechArguments(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_CHARS, description="What to say.")
    voice: str | None = Field(default=None, max_length=40, description="e.g. alloy, nova.")
    format: AudioFormat = Field(default="mp3", description="Audio format of the file.")
    save_as: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        description="File name (default speech.<format>).",
    )


async def text_to_speech(args: TextToSpeechArguments, context: ToolContext) -> dict[str, Any]:
    speech = SpeechOptions(voice=args.voice, format=args.format)
    text = Message.user(args.text)
    response = await ask_model(
        context, OperationType.text_to_speech, [text], MISSING_AUDIO_PROVIDER, speech=speech
    )
    if not response.audio:
        raise AgenturError(f"{response.model} returned no audio")
    name = args.save_as or f"speech.{args.format}"
    saved = await store_file(context, name, response.audio, MIME_TYPES[args.format])
    return {**describe(saved), "model": response.model, "characters": len(args.text)}


TOOLS = [
    Tool(
        name="text_to_speech",
        description="Speak a text (up to 4,096 characters) into a workspace audio file.",
        arguments=TextToSpeechArguments,
        handler=text_to_speech,
        read_only=False,
        toolbox="language",
        timeout_seconds=300.0,
    )
]

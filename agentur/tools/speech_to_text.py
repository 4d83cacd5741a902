"""`speech_to_text`: a workspace audio file transcribed through the gateway's
`speech_to_text` operation (OpenAI `/audio/transcriptions` wire format); the transcript comes
back and, with `save_as`, is stored as a workspace text file."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.ai.messages import AudioInput, SpeechOptions
from agentur.ai.operation_types import OperationType
from agentur.errors import TooLargeError
from agentur.tools.gateway_call import ask_model
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import change_files, file_service
from agentur.tools.workspace_files import describe

# The transcription APIs refuse larger uploads (OpenAI: 25 MB).
MAX_AUDIO_BYTES = 25 * 1024 * 1024
MISSING_AUDIO_PROVIDER = (
    "no audio-capable provider is configured; set AGENTUR_OPENAI_API_KEY (models "
    "gpt-4o-mini-transcribe and gpt-4o-mini-tts)"
)


class SpeechToTextArguments(BaseModel):
    file_id: str = Field(description="A workspace audio file (mp3, mp4, m4a, wav, webm, ogg).")
    language: str | None = Field(
        default=None, min_length=2, max_length=2, description="ISO 639-1 hint, e.g. 'de'."
    )
    save_as: str | None = Field(
        default=None, min_length=1, max_length=255, description="Store the transcript as this."
    )


async def speech_to_text(args: SpeechToTextArguments, context: ToolContext) -> dict[str, Any]:
    async with file_service(context) as files:
        file, data = await files.read_bytes(args.file_id)
    if len(data) > MAX_AUDIO_BYTES:
        raise TooLargeError(f"{file.name} is larger than {MAX_AUDIO_BYTES} bytes")
    audio = AudioInput(data, file.name, file.mime_type)
    speech = SpeechOptions(language=args.language)
    response = await ask_model(
        context,
        OperationType.speech_to_text,
        [],
        MISSING_AUDIO_PROVIDER,
        audio=audio,
        speech=speech,
    )
    result: dict[str, Any] = {"file_id": file.id, "text": response.text, "model": response.model}
    if args.save_as:
        saved = await change_files(
            context, lambda files: files.write_text(args.save_as or "", response.text)
        )
        result["saved_file"] = describe(saved)
    return result


TOOLS = [
    Tool(
        name="speech_to_text",
        description="Transcribe a workspace audio file to text; save_as also stores the "
        "transcript as a workspace file.",
        arguments=SpeechToTextArguments,
        handler=speech_to_text,
        read_only=False,  # save_as writes; the role check comes before the upload costs
        toolbox="language",
        timeout_seconds=300.0,
    )
]

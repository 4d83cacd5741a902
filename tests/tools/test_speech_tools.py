"""speech_to_text and text_to_speech: workspace files in and out, through the gateway against
an OpenAI audio wire server; a clear error when no audio-capable provider is configured."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from agentur.ai.messages import ToolCall
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.service import AiService
from agentur.context import Role
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.speech_to_text import TOOLS as STT_TOOLS
from agentur.tools.text_to_speech import TOOLS as TTS_TOOLS
from agentur.tools.tool import Tool, ToolContext
from agentur.workspace.files import FileService
from tests.ai.wire_servers import WireServer, form_fields, openai_speech, openai_transcription

PRICED = {"input_price_usd_per_mtok": 1.0, "output_price_usd_per_mtok": 2.0}
STT = ModelSpec(
    "openai", "gpt-4o-mini-transcribe", frozenset({Capability.speech_to_text}), **PRICED
)
TTS = ModelSpec("openai", "gpt-4o-mini-tts", frozenset({Capability.text_to_speech}), **PRICED)
RECORDING = b"OggS" + bytes(range(200))


@pytest.fixture
def audio_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


async def call(tool: Tool, context: ToolContext, **arguments: object) -> tuple[bool, object]:
    outcome = await run_tool(
        tool, ToolCall("a1", tool.name, dict(arguments)), context, ToolLimits(), lambda _: None
    )
    return outcome.is_error, outcome.content if outcome.is_error else json.loads(outcome.content)


async def test_a_recording_is_transcribed_and_the_transcript_saved(
    runtime: Runtime, tenants, audio_server: WireServer
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = AiService(
        [OpenAIProvider(api_key="sk", base_url=audio_server.base_url, models=[STT, TTS])],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)

        async def chunks():
            yield RECORDING

        memo = await files.upload("memo.ogg", chunks(), mime_type="audio/ogg")
        await files.commit()
    audio_server.enqueue(openai_transcription("Termin am Montag um neun.", input_tokens=80))
    context = ToolContext(request=alice.context, runtime=runtime)
    failed, result = await call(
        STT_TOOLS[0], context, file_id=memo.id, language="de", save_as="memo.txt"
    )
    assert not failed, result
    assert result["text"] == "Termin am Montag um neun."  # type: ignore[index]
    assert form_fields(audio_server.last)["file"] == ("memo.ogg", RECORDING)
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        _, saved = await files.read_text(result["saved_file"]["file_id"])  # type: ignore[index]
        ledger = (await session.execute(select(AiLedgerEntry))).scalars().all()
    assert saved == "Termin am Montag um neun."
    assert [(row.operation, row.input_tokens) for row in ledger] == [("speech_to_text", 80)]


async def test_speech_is_stored_as_a_workspace_audio_file(
    runtime: Runtime, tenants, audio_server: WireServer
) -> None:
    alice = await tenants.member("acme")
    viewer = await tenants.member("acme", Role.viewer)
    runtime.ai = AiService(
        [OpenAIProvider(api_key="sk", base_url=audio_server.base_url, models=[STT, TTS])],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    audio_server.enqueue(openai_speech(b"ID3-spoken-audio"))
    failed, result = await call(
        TTS_TOOLS[0],
        ToolContext(request=alice.context, runtime=runtime),
        text="Willkommen in Bern.",
        voice="nova",
    )
    assert not failed, result
    assert result["name"] == "speech.mp3" and result["mime_type"] == "audio/mpeg"  # type: ignore[index]
    assert audio_server.last.json["voice"] == "nova"
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        _, data = await files.read_bytes(result["file_id"])  # type: ignore[index]
    assert data == b"ID3-spoken-audio"
    failed, error = await call(
        TTS_TOOLS[0], ToolContext(request=viewer.context, runtime=runtime), text="x"
    )
    assert failed and "read-only" in str(error)
    assert len(audio_server.received) == 1  # refused before any paid call


async def test_without_an_audio_provider_the_error_says_what_to_configure(
    runtime: Runtime, tenants
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = AiService([], settings=runtime.ai.settings, store=runtime.ai.store)
    failed, error = await call(
        TTS_TOOLS[0], ToolContext(request=alice.context, runtime=runtime), text="Hallo"
    )
    assert failed and "no audio-capable provider" in str(error)
    assert "AGENTUR_OPENAI_API_KEY" in str(error)

"""detect_language (offline, lingua) and translate (gateway `translate` operation, windowed,
neutralization honoured) — with a scripted model on real storage."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import select

from agentur.ai.messages import AiRequest, ToolCall
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry
from agentur.tools.detect_language import TOOLS as DETECT_TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.translate import TOOLS as TRANSLATE_TOOLS
from agentur.tools.translate import WINDOW_CHARS, windows
from agentur.workspace.files import FileService
from tests.agent.support import chat_model

DETECT, TRANSLATE = DETECT_TOOLS[0], TRANSLATE_TOOLS[0]


async def call(tool: Tool, context: ToolContext, **arguments: object) -> tuple[bool, object]:
    outcome = await run_tool(
        tool, ToolCall("c1", tool.name, dict(arguments)), context, ToolLimits(), lambda _: None
    )
    return outcome.is_error, outcome.content if outcome.is_error else json.loads(outcome.content)


def offline_context() -> ToolContext:
    from agentur.context import RequestContext, Role

    return ToolContext(request=RequestContext("u", "m", Role.member), runtime=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Guten Tag, ich möchte gerne einen Termin für nächste Woche vereinbaren.", "de"),
        ("Bonjour, je voudrais prendre rendez-vous pour la semaine prochaine.", "fr"),
        ("Buongiorno, vorrei fissare un appuntamento per la settimana prossima.", "it"),
        ("Good morning, I would like to book an appointment for next week.", "en"),
        ("Buenos días, quisiera pedir una cita para la semana que viene.", "es"),
    ],
)
async def test_detect_language_names_the_language_with_confidence(text: str, code: str) -> None:
    failed, found = await call(DETECT, offline_context(), text=text)
    assert not failed, found
    assert found["language"] == code and found["confidence"] > 0.5  # type: ignore[index]
    assert all(alt["confidence"] <= found["confidence"] for alt in found["alternatives"])  # type: ignore[index]


async def test_detect_language_without_letters_names_none() -> None:
    failed, found = await call(DETECT, offline_context(), text="12345 !!! 678")
    assert not failed and found["language"] is None  # type: ignore[index]


def test_windows_join_back_exactly() -> None:
    text = ("A sentence about mountains. " * 40 + "\n\n") * 12
    pieces = windows(text, WINDOW_CHARS)
    assert len(pieces) > 2 and max(map(len, pieces)) <= WINDOW_CHARS
    assert "".join(pieces) == text


def echo_translator() -> ScriptedProvider:
    """Answers each translate call with the window it got, marked, so order and placeholders
    are visible."""

    def turn(request: AiRequest) -> ScriptedTurn:
        return ScriptedTurn(text=f"<{request.messages[-1].content.strip()}>")

    return ScriptedProvider([turn] * 20, model_specs=[chat_model()])


async def test_translate_windows_a_long_text_in_order_and_bills_each_call(
    runtime: Runtime, tenants
) -> None:
    alice = await tenants.member("acme")
    provider = echo_translator()
    runtime.ai = AiService([provider], settings=runtime.ai.settings, store=runtime.ai.store)
    paragraphs = [f"Paragraph {n}. " + "Word " * 300 for n in range(8)]
    text = "\n\n".join(paragraphs)
    context = ToolContext(request=alice.context, runtime=runtime, workflow_id=None)
    failed, result = await call(TRANSLATE, context, text=text, target_language="German")
    assert not failed, result
    sent = [r.messages[-1].content for r in provider.received]
    assert len(sent) == result["windows"] > 1  # type: ignore[index]
    assert "".join(sent) == text
    assert all(r.operation == "translate" for r in provider.received)
    assert "into German" in provider.received[0].messages[0].content
    translation = result["translation"]  # type: ignore[index]
    assert translation.count("<") == len(sent) and translation.startswith("<Paragraph 0")
    assert translation.index("Paragraph 3") < translation.index("Paragraph 7")
    async with runtime.database.session() as session:
        operations = (await session.execute(select(AiLedgerEntry.operation))).scalars().all()
    assert operations == ["translate"] * len(sent)


async def test_translate_a_file_with_neutralization(runtime: Runtime, tenants) -> None:
    alice = await tenants.member("acme")
    provider = echo_translator()
    runtime.ai = AiService([provider], settings=runtime.ai.settings, store=runtime.ai.store)
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        file = await files.write_text("letter.txt", "Schreiben Sie an anna.muster@example.ch.")
        await files.commit()
    context = ToolContext(
        request=replace(alice.context, require_neutralization=True), runtime=runtime
    )
    failed, result = await call(TRANSLATE, context, file_id=file.id, target_language="en")
    assert not failed, result
    assert "anna.muster@example.ch" not in provider.received[0].messages[-1].content
    assert result["translation"] == "<Schreiben Sie an anna.muster@example.ch.>"  # type: ignore[index]


async def test_translate_needs_one_input_and_a_chat_model(runtime: Runtime, tenants) -> None:
    alice = await tenants.member("acme")
    context = ToolContext(request=alice.context, runtime=runtime)
    failed, error = await call(TRANSLATE, context, target_language="de")
    assert failed and "either text or file_id" in str(error)
    runtime.ai = AiService([], settings=runtime.ai.settings, store=runtime.ai.store)
    failed, error = await call(TRANSLATE, context, text="Hallo", target_language="en")
    assert failed and "AGENTUR_OPENAI_API_KEY" in str(error)

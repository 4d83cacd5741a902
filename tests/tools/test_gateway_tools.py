"""describe_image, summarize and neutralize_data: tools that reach models only through the
gateway — with a scripted model on real storage (both backends)."""

from __future__ import annotations

import io
import json
import re

from PIL import Image

from agentur.ai.messages import AiRequest, ToolCall
from agentur.ai.model_spec import Capability
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.runtime import Runtime
from agentur.tools.describe_image import TOOLS as DESCRIBE_TOOLS
from agentur.tools.neutralize_data import TOOLS as NEUTRALIZE_TOOLS
from agentur.tools.registry import ToolRegistry
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.summarize import TOOLS as SUMMARIZE_TOOLS
from agentur.tools.summarize import WINDOW_CHARS
from agentur.tools.tool import Tool, ToolContext
from agentur.workspace.files import FileService
from tests.agent.support import chat_model

DESCRIBE, SUMMARIZE, NEUTRALIZE = DESCRIBE_TOOLS[0], SUMMARIZE_TOOLS[0], NEUTRALIZE_TOOLS[0]
VISION = frozenset({Capability.tools, Capability.streaming, Capability.vision})


async def call(tool: Tool, context: ToolContext, **arguments: object) -> tuple[bool, object]:
    outcome = await run_tool(
        tool, ToolCall("c1", tool.name, dict(arguments)), context, ToolLimits(), lambda _: None
    )
    return outcome.is_error, outcome.content if outcome.is_error else json.loads(outcome.content)


def use(runtime: Runtime, provider: ScriptedProvider) -> None:
    runtime.ai = AiService([provider], settings=runtime.ai.settings, store=runtime.ai.store)


async def write(runtime: Runtime, member, name: str, data: bytes, **options) -> str:
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, member.context, runtime.workspace_limits)
        file = await files.write_bytes(name, data, **options)
        await files.commit()
        return file.id


async def read(runtime: Runtime, member, file_id: str) -> tuple[str, bytes]:
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, member.context, runtime.workspace_limits)
        file, data = await files.read_bytes(file_id)
        return file.name, data


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (30, 20), "blue").save(buffer, "PNG")
    return buffer.getvalue()


def test_the_tools_are_registered_in_the_ai_toolbox() -> None:
    registry = ToolRegistry.discover()
    for name in ("describe_image", "summarize", "neutralize_data"):
        tool = registry.get(name)
        assert tool is not None and tool.toolbox == "ai"


async def test_describe_image_sends_the_file_to_a_vision_model(runtime: Runtime, tenants):
    alice = await tenants.member("acme")
    provider = ScriptedProvider(
        model_specs=[chat_model(capabilities=VISION)],
        fallback=ScriptedTurn(text="A blue rectangle."),
    )
    use(runtime, provider)
    data = png()
    image_id = await write(runtime, alice, "photo.png", data)
    context = ToolContext(request=alice.context, runtime=runtime, workflow_id=None)

    failed, result = await call(DESCRIBE, context, file_id=image_id, question="Which colour?")
    assert not failed, result
    assert result["answer"] == "A blue rectangle." and result["name"] == "photo.png"  # type: ignore[index]
    sent = provider.received[-1]
    assert sent.operation == OperationType.image_analyse
    assert sent.messages[-1].content == "Which colour?"
    assert [(i.data, i.mime_type) for i in sent.messages[-1].images] == [(data, "image/png")]


async def test_describe_image_refuses_non_images_neutralize_files_and_blind_models(
    runtime: Runtime, tenants
):
    alice = await tenants.member("acme")
    blind = ScriptedProvider(model_specs=[chat_model()], fallback=ScriptedTurn(text="?"))
    use(runtime, blind)
    context = ToolContext(request=alice.context, runtime=runtime)
    text_id = await write(runtime, alice, "notes.txt", b"hello")
    failed, error = await call(DESCRIBE, context, file_id=text_id)
    assert failed and "not an image" in str(error)
    secret_id = await write(runtime, alice, "id-card.png", png(), neutralize=True)
    failed, error = await call(DESCRIBE, context, file_id=secret_id)
    assert failed and "cannot be neutralized" in str(error)
    image_id = await write(runtime, alice, "photo.png", png())
    failed, error = await call(DESCRIBE, context, file_id=image_id)
    assert failed and "no vision model" in str(error) and "vision" in str(error)
    assert blind.received == []


def section_notes(request: AiRequest) -> ScriptedTurn:
    """Map calls answer `note Sn`; the reduce call cites two real sections and one invented."""
    system = request.messages[0].content
    found = re.search(r"You read section (S\d+)", system)
    if found:
        return ScriptedTurn(text=f"note {found.group(1)}")
    return ScriptedTurn(text="Costs rose [S1]; the plan changed [S3]. Unrelated [S99].")


async def test_summarize_maps_windows_and_cites_sections(runtime: Runtime, tenants):
    alice = await tenants.member("acme")
    provider = ScriptedProvider([section_notes] * 20, model_specs=[chat_model()])
    use(runtime, provider)
    chapters = [f"# Chapter {n}\n\n" + f"Sentence {n} about costs. " * 700 for n in range(3)]
    text = "\n\n".join(chapters)
    file_id = await write(runtime, alice, "report.md", text.encode())
    context = ToolContext(request=alice.context, runtime=runtime)

    failed, result = await call(SUMMARIZE, context, file_id=file_id, focus="costs", length="short")
    assert not failed, result
    sections = result["sections"]  # type: ignore[index]
    assert len(sections) > 2 and sections[0]["start"] == 0 and sections[-1]["end"] == len(text)
    assert all(b["start"] == a["end"] for a, b in zip(sections, sections[1:], strict=False))
    assert all(s["end"] - s["start"] <= WINDOW_CHARS for s in sections)
    assert sections[0]["heading"] == "Chapter 0" and sections[-1]["heading"] == "Chapter 2"
    # One map call per window, then one reduce call over all the notes, labelled.
    assert result["calls"] == len(sections) + 1 == len(provider.received)  # type: ignore[index]
    assert all(r.operation == OperationType.data_analyse for r in provider.received)
    reduce_input = provider.received[-1].messages[-1].content
    for section in sections:
        assert f"[{section['id']}] (characters {section['start']}–{section['end']}" in reduce_input
        assert f"note {section['id']}" in reduce_input
    assert "Concentrate on: costs" in provider.received[0].messages[0].content
    assert "about 80 words" in provider.received[-1].messages[0].content
    assert result["summary"].startswith("Costs rose [S1]")  # type: ignore[index]
    assert result["cited_sections"] == ["S1", "S3"]  # type: ignore[index]


async def test_summarize_a_short_text_in_one_call(runtime: Runtime, tenants):
    alice = await tenants.member("acme")
    provider = ScriptedProvider([section_notes], model_specs=[chat_model()])
    use(runtime, provider)
    context = ToolContext(request=alice.context, runtime=runtime)
    failed, result = await call(SUMMARIZE, context, text="The budget is 40 000 CHF.")
    assert not failed, result
    assert result["calls"] == 1 and len(result["sections"]) == 1  # type: ignore[index]
    assert "The budget is 40 000 CHF." in provider.received[0].messages[-1].content
    failed, error = await call(SUMMARIZE, context)
    assert failed and "either text or file_id" in str(error)


async def test_neutralize_data_writes_a_copy_and_keeps_the_original(runtime: Runtime, tenants):
    alice = await tenants.member("acme")
    original = b"Bitte an anna.muster@example.ch schreiben, Tel. +41 44 668 18 00."
    file_id = await write(runtime, alice, "brief.txt", original)
    context = ToolContext(request=alice.context, runtime=runtime, workflow_id=None)

    failed, result = await call(NEUTRALIZE, context, file_id=file_id)
    assert not failed, result
    assert result["name"] == "brief.neutralized.txt" and result["file_id"] != file_id  # type: ignore[index]
    assert result["source_file_id"] == file_id and result["replacements"] == 2  # type: ignore[index]
    name, copy = await read(runtime, alice, result["file_id"])  # type: ignore[index]
    assert "anna.muster@example.ch" not in copy.decode() and "[EMAIL_1]" in copy.decode()
    assert copy.decode().startswith("Bitte an [EMAIL_1] schreiben")
    assert await read(runtime, alice, file_id) == ("brief.txt", original)

    failed, result = await call(NEUTRALIZE, context, text="Mail: hans@example.com", name="x.txt")
    assert not failed, result
    assert (await read(runtime, alice, result["file_id"]))[1] == b"Mail: [EMAIL_1]"  # type: ignore[index]

"""summarize, translate, neutralize_data and read_file over documents — a PDF, a DOCX, an XLSX
and a scanned PNG — read as their extracted text: extracted on demand before the file is
indexed, the stored extraction once it is; a file marked `neutralize` is never handed to a model
in clear. The model is the scripted provider; the files, extraction, OCR and index are real."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator

import pytest

from agentur.ai.messages import AiRequest, ToolCall
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.knowledge import document_texts
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.tools.neutralize_data import TOOLS as NEUTRALIZE_TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.summarize import TOOLS as SUMMARIZE_TOOLS
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.translate import TOOLS as TRANSLATE_TOOLS
from agentur.tools.workspace_files import TOOLS as FILE_TOOLS
from agentur.workspace.files import FileService
from tests.knowledge.conftest import knowledge_settings, upload
from tests.knowledge.sample_files import docx_bytes, pdf_bytes, scanned_png, xlsx_bytes

SUMMARIZE, TRANSLATE, NEUTRALIZE = SUMMARIZE_TOOLS[0], TRANSLATE_TOOLS[0], NEUTRALIZE_TOOLS[0]
READ_FILE = next(tool for tool in FILE_TOOLS if tool.name == "read_file")
HAS_TESSERACT = shutil.which("tesseract") is not None
SCAN_LINES = ["Mietvertrag für Wohnräume", "Die Kündigungsfrist beträgt drei Monate"]
DOCUMENTS = {
    "report.pdf": (pdf_bytes, "Revenue grew strongly in the alpine region this year."),
    "handbook.docx": (docx_bytes, "Everyone gets twenty-five days."),
    "prices.xlsx": (xlsx_bytes, "Pear | 7"),
    "vertrag.png": (lambda: scanned_png(SCAN_LINES), "Kündigungsfrist beträgt drei Monate"),
}
EMAIL = "anna.muster@example.ch"


def echo(request: AiRequest) -> ScriptedTurn:
    """Answers with what it was given, marked, so the text a model saw shows in the result."""
    return ScriptedTurn(text=f"<{request.messages[-1].content.strip()}>")


@pytest.fixture
async def provider(runtime: Runtime) -> AsyncIterator[ScriptedProvider]:
    """Chat answers echo; embeddings are the scripted provider's trigram vectors."""
    scripted = ScriptedProvider([echo] * 50, fallback=None)
    await runtime.ai.aclose()
    runtime.ai = AiService([scripted], settings=runtime.ai.settings, store=runtime.ai.store)
    use_knowledge_store(runtime, KnowledgeStore(runtime, knowledge_settings()))
    yield scripted


@pytest.fixture(autouse=True)
def one_tesseract_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # see tests/knowledge/test_ocr.py


async def call(tool: Tool, context: ToolContext, **arguments: object) -> dict:
    outcome = await run_tool(
        tool, ToolCall("c1", tool.name, dict(arguments)), context, ToolLimits(), lambda _: None
    )
    assert not outcome.is_error, outcome.content
    return json.loads(outcome.content)


async def file_text(runtime: Runtime, context: ToolContext, file_id: str) -> str:
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, context.request, runtime.workspace_limits)
        return (await files.read_text(file_id))[1]


def forbid_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tripwire: reading must come from the index, not from a new extraction."""

    def extract(*_: object) -> None:
        raise AssertionError("extracted again although the index is current")

    monkeypatch.setattr(document_texts, "extract", extract)


@pytest.mark.parametrize("name", list(DOCUMENTS))
async def test_summarize_translate_and_neutralize_a_document(
    runtime: Runtime, provider: ScriptedProvider, tenants, name: str
) -> None:
    if name.endswith(".png") and not HAS_TESSERACT:
        pytest.skip("Tesseract is not installed (.ci/run installs it)")
    make, phrase = DOCUMENTS[name]
    alice = await tenants.member()
    file = await upload(runtime, alice.context, name, make())
    context = ToolContext(request=alice.context, runtime=runtime)

    # Not indexed yet: extracted on demand.
    summary = await call(SUMMARIZE, context, file_id=file.id, length="short")
    sent = provider.received[-1].messages[-1].content
    assert phrase in sent and summary["file_id"] == file.id
    assert phrase in summary["summary"] and summary["source_length"] > len(phrase)

    translated = await call(TRANSLATE, context, file_id=file.id, target_language="fr")
    assert phrase in translated["translation"] and translated["translation"].startswith("<")

    copy = await call(NEUTRALIZE, context, file_id=file.id)
    assert copy["source_file_id"] == file.id and copy["mime_type"] == "text/plain"
    assert phrase in await file_text(runtime, context, copy["file_id"])

    read = await call(READ_FILE, context, file_id=file.id, limit=5_000)
    assert phrase in read["content"] and read["total_length"] == summary["source_length"]


async def test_an_indexed_document_is_read_from_its_index(
    runtime: Runtime, provider: ScriptedProvider, tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "report.pdf", pdf_bytes())
    store = runtime.__dict__["_knowledge_store"]
    assert [o.status for o in await store.worker.run_until_idle()] == ["indexed"]
    forbid_extraction(monkeypatch)
    context = ToolContext(request=alice.context, runtime=runtime)
    result = await call(TRANSLATE, context, file_id=file.id, target_language="de")
    assert "Revenue grew strongly" in result["translation"]
    async with runtime.database.session() as session:
        _, _, document = await store.reader.document(session, alice.context, file.id)
    assert "".join(r.messages[-1].content for r in provider.received) == document.text


@pytest.mark.parametrize("indexed", [False, True], ids=["extracted-now", "from-the-index"])
async def test_a_neutralize_document_never_reaches_a_model_in_clear(
    runtime: Runtime,
    provider: ScriptedProvider,
    tenants,
    monkeypatch: pytest.MonkeyPatch,
    indexed: bool,
) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Kontakt", level=1)
    document.add_paragraph(f"Bitte schreiben Sie an {EMAIL} wegen der Offerte.")
    path = runtime.settings.data_dir / "kontakt.docx"
    document.save(path)
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "kontakt.docx", path.read_bytes(), neutralize=True)
    if indexed:
        store = runtime.__dict__["_knowledge_store"]
        assert [o.status for o in await store.worker.run_until_idle()] == ["indexed"]
        forbid_extraction(monkeypatch)
    context = ToolContext(request=alice.context, runtime=runtime, workflow_id=None)

    summary = await call(SUMMARIZE, context, file_id=file.id)
    translated = await call(TRANSLATE, context, file_id=file.id, target_language="en")
    copy = await call(NEUTRALIZE, context, file_id=file.id)
    read = await call(READ_FILE, context, file_id=file.id)

    seen = [m.content for r in provider.received for m in r.messages]
    assert provider.received and not any(EMAIL in text for text in seen)
    assert any("[EMAIL_1]" in text and "wegen der Offerte" in text for text in seen)
    for shown in (summary["summary"], translated["translation"], read["content"]):
        assert EMAIL not in shown and "[EMAIL_1]" in shown
    assert EMAIL not in await file_text(runtime, context, copy["file_id"])


async def test_a_recording_is_refused_with_the_reason(
    runtime: Runtime, provider: ScriptedProvider, tenants
) -> None:
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "song.mp3", b"ID3\x04\x00" + bytes(range(256)))
    context = ToolContext(request=alice.context, runtime=runtime)
    outcome = await run_tool(
        SUMMARIZE,
        ToolCall("c1", "summarize", {"file_id": file.id}),
        context,
        ToolLimits(),
        lambda _: None,
    )
    assert outcome.is_error and "audio/mpeg files hold no text" in outcome.content
    assert provider.received == []

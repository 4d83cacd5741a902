"""OCR: a scanned German PDF — text rendered to an image, the image made a PDF, no text
layer — and a PNG photo become searchable text; hits carry their page for citations."""

from __future__ import annotations

import io
import shutil

import pytest

from agentur.knowledge.extract import extract
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from tests.knowledge.conftest import upload
from tests.knowledge.sample_files import scanned_page, scanned_png

OCR = OcrSettings()  # read from the environment, as the settings root reads them

pytestmark = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="Tesseract is not installed (.ci/run installs it)"
)

PAGE_ONE = [
    "Mietvertrag für Wohnräume",
    "zwischen Frau Müller und Herrn Weiß",
    "Die Wohnung liegt im dritten Stock",
    "und umfasst vier Zimmer mit Küche.",
    "Der Mietzins wird monatlich im Voraus",
    "auf das Konto der Vermieterin bezahlt.",
    "Die Nebenkosten werden jährlich",
    "nach dem tatsächlichen Aufwand abgerechnet.",
    "Haustiere sind nach Absprache erlaubt.",
    "Die Hausordnung ist Bestandteil des Vertrags.",
]
PAGE_TWO = ["Die Kündigungsfrist beträgt drei Monate", "zum Ende eines Kalendermonats."]


@pytest.fixture(autouse=True)
def one_tesseract_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tesseract's OpenMP threads spin against each other on a busy machine: one page took
    3.1 s (1.5 s CPU) with them and 1.1 s (0.5 s CPU) with one thread, same text."""
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")


def _scanned_pdf() -> bytes:
    out = io.BytesIO()
    first, second = scanned_page(PAGE_ONE), scanned_page(PAGE_TWO)
    first.save(out, "PDF", resolution=150, save_all=True, append_images=[second])
    return out.getvalue()


def test_a_scanned_pdf_has_text_per_page() -> None:
    document = extract(_scanned_pdf(), "vertrag.pdf", "application/pdf", OCR)
    assert document.page_count == 2
    pages: dict[int | None, str] = {}
    for block in document.blocks:
        pages[block.page] = pages.get(block.page, "") + document.text[block.start : block.end]
    assert "Kündigungsfrist beträgt drei Monate" in pages[2]
    assert "Mietvertrag für Wohnräume" in pages[1]


async def test_search_finds_a_phrase_of_a_scan_with_its_page(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    scan = await upload(runtime, alice.context, "vertrag.pdf", _scanned_pdf())
    receipt_png = scanned_png(["Quittung Bäckerei Zürich", "Total CHF 12.50"])
    receipt = await upload(runtime, alice.context, "quittung.png", receipt_png)
    outcomes = await store.worker.run_until_idle()
    assert sorted(o.status for o in outcomes) == ["indexed", "indexed"]

    async with runtime.database.session() as session:
        result = await store.search.search(session, "Kündigungsfrist drei Monate", alice.context)
        hit = result.hits[0]
        assert (hit.file_id, hit.page) == (scan.id, 2)
        assert "Kündigungsfrist beträgt drei Monate" in hit.text
        result = await store.search.search(session, "Quittung Bäckerei", alice.context)
    assert (result.hits[0].file_id, result.hits[0].page) == (receipt.id, 1)

"""The CPU-heavy middle of indexing, as plain functions the background process can run:
chunk a document and compute each chunk's language and lexical terms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentur.knowledge.chunking import ChunkDraft, ChunkingConfig, chunk_document
from agentur.knowledge.extract import extract
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.lexical import detect_language, index_terms
from agentur.knowledge.udm import Document


@dataclass(frozen=True, slots=True)
class PreparedChunks:
    drafts: list[ChunkDraft]
    language: str
    terms: list[str]  # per draft, from its context text


def prepare_chunks(document: Document, config: ChunkingConfig) -> PreparedChunks:
    drafts = chunk_document(document, config)
    language = detect_language(document.text)
    return PreparedChunks(drafts, language, [index_terms(d.context_text, language) for d in drafts])


def extract_and_prepare(
    data: bytes, name: str, mime_type: str, config: ChunkingConfig, ocr: OcrSettings
) -> tuple[Document, PreparedChunks]:
    """Both steps in one call (one round trip to the worker process) when nothing happens
    between them (no neutralization)."""
    document = extract(data, name, mime_type, ocr)
    return document, prepare_chunks(document, config)


def read_and_prepare_many(
    read: Callable[[str], bytes],
    files: list[tuple[str, str, str]],
    config: ChunkingConfig,
    ocr: OcrSettings,
) -> list[tuple[Document, PreparedChunks] | Exception]:
    """Read, extract and chunk several small files (sha256, name, mime type) in one call: one
    thread round trip for all of them. A file that fails yields its exception, so it fails
    alone."""
    results: list[tuple[Document, PreparedChunks] | Exception] = []
    for sha256, name, mime_type in files:
        try:
            results.append(extract_and_prepare(read(sha256), name, mime_type, config, ocr))
        except Exception as error:  # noqa: BLE001 - recorded for that file by the caller
            results.append(error)
    return results

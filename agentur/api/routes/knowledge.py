"""/v1/knowledge/search and the per-file index endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, Field
from sqlalchemy import select

from agentur.api.backpressure.request_slots import RequestSlotsDep
from agentur.api.backpressure.tenant_limits import WorkKind
from agentur.api.dependencies import ContextDep, FileServiceDep, RuntimeDep, SessionDep
from agentur.api.parameters import NOT_BLANK
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.context import utc_now
from agentur.json_numbers import JsonInt
from agentur.knowledge.search import MAX_QUERY_CHARS, SearchHit
from agentur.knowledge.search_legs import SearchFilters
from agentur.knowledge.section_reader import DEFAULT_WINDOW, MAX_WINDOW
from agentur.knowledge.store import knowledge_store
from agentur.setting_limits import limit_from_setting
from agentur.storage.models.knowledge import FileContentIndex
from agentur.workspace.scopes import Scope

router = APIRouter(tags=["knowledge"], responses=AUTHENTICATED)


class SearchIn(BaseModel):
    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, pattern=NOT_BLANK, description="Not only spaces."
    )
    limit: JsonInt = Field(
        default=10,
        ge=1,
        le=1_000,
        description="Hits to return (at most AGENTUR_KNOWLEDGE_MAX_SEARCH_LIMIT).",
        json_schema_extra=limit_from_setting("knowledge_max_search_limit"),
    )
    scopes: list[Scope] | None = Field(default=None, max_length=len(Scope))
    file_ids: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None, max_length=1_000
    )
    content_types: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None, max_length=100
    )


class SearchOut(BaseModel):
    # The domain dataclass is the response shape itself (pydantic validates dataclasses).
    hits: list[SearchHit]
    legs: list[str] = Field(description="The retrieval legs that ran: lexical, vector.")
    vector_error: str | None = Field(description="Why the vector leg did not run, if it did not.")


class IndexOut(BaseModel):
    file_id: str
    status: str
    error: str | None = None
    scope: str | None = None
    format: str | None = None
    chunk_count: int = 0
    chunks_total: int | None = Field(
        default=None, description="Chunks of the file being (or last) indexed."
    )
    chunks_done: int | None = Field(default=None, description="Of those, chunks embedded so far.")
    eta_seconds: float | None = Field(
        default=None, description="Estimated seconds until indexing finishes (while indexing)."
    )
    embedding_model: str | None = None
    embedding_error: str | None = None
    is_neutralized: bool = False
    neutralization_status: str | None = None
    summary: dict[str, Any] | None = None
    structure: dict[str, Any] | None = None
    indexed_at: datetime | None = None


@router.post("/knowledge/search", responses=problem_responses(429, 503))
async def search_knowledge(
    body: SearchIn,
    runtime: RuntimeDep,
    session: SessionDep,
    context: ContextDep,
    slots: RequestSlotsDep,
) -> SearchOut:
    await slots.take(WorkKind.search, context.mandate_id)
    store = knowledge_store(runtime)
    result = await store.search.search(
        session,
        body.query,
        context,
        limit=body.limit,
        filters=SearchFilters(
            scopes=[s.value for s in body.scopes] if body.scopes is not None else None,
            file_ids=body.file_ids,
            content_types=body.content_types,
        ),
    )
    return SearchOut(
        hits=result.hits,
        legs=result.legs,
        vector_error=result.vector_error,
    )


def _eta_seconds(index: FileContentIndex) -> float | None:
    """Remaining chunks at the rate so far; unknown before the first batch is done."""
    done, total, started = index.chunks_done, index.chunks_total, index.progress_started_at
    if index.status != "indexing" or not done or total is None or started is None:
        return None
    elapsed = (utc_now() - started).total_seconds()
    return round(max(0.0, elapsed) / done * max(0, total - done), 1)


def _index_out(file_id: str, index: FileContentIndex | None) -> IndexOut:
    if index is None:
        return IndexOut(file_id=file_id, status="pending")
    return IndexOut(
        file_id=file_id,
        status=index.status,
        error=index.error,
        scope=index.scope,
        format=index.format,
        chunk_count=index.chunk_count,
        chunks_total=index.chunks_total,
        chunks_done=index.chunks_done,
        eta_seconds=_eta_seconds(index),
        embedding_model=index.embedding_model,
        embedding_error=index.embedding_error,
        is_neutralized=index.is_neutralized,
        neutralization_status=index.neutralization_status,
        summary=index.summary,
        structure=index.structure,
        indexed_at=index.indexed_at,
    )


@router.get("/files/{file_id}/index", responses=problem_responses(404))
async def get_file_index(file_id: str, files: FileServiceDep) -> IndexOut:
    """Structure and status of a file's index; 404 for files the caller may not see."""
    file = await files.get(file_id)
    index = await files.session.scalar(
        select(FileContentIndex).where(FileContentIndex.file_id == file.id)
    )
    return _index_out(file.id, index)


@router.post(
    "/files/{file_id}/reindex",
    status_code=status.HTTP_202_ACCEPTED,
    responses=problem_responses(404),
)
async def reindex_file(file_id: str, runtime: RuntimeDep, files: FileServiceDep) -> IndexOut:
    """Queue the file for re-indexing; the background worker picks it up."""
    file = await files.get(file_id)
    store = knowledge_store(runtime)
    index = await store.indexer.request_reindex(files.session, file)
    await files.session.commit()
    store.worker.wake()
    return _index_out(file.id, index)


class SectionOut(BaseModel):
    file_id: str
    file_name: str
    heading_path: list[str]
    content: str
    offset: int = Field(description="Of `content`, inside the section (or range).")
    section_start: int = Field(description="Where the section starts in the document's text.")
    total_length: int = Field(description="Characters in the whole section (or range).")
    next_offset: int | None = Field(description="Offset of the next window; null at the end.")


@router.get("/files/{file_id}/section", responses=problem_responses(404))
async def read_file_section(
    file_id: str,
    runtime: RuntimeDep,
    session: SessionDep,
    context: ContextDep,
    heading: Annotated[
        list[Annotated[str, Field(max_length=500)]],
        Query(max_length=20, description="A heading path, outermost first (repeat)."),
    ] = [],  # noqa: B006
    start: Annotated[int | None, Query(ge=0, le=2**31, description="Without heading.")] = None,
    end: Annotated[int | None, Query(ge=0, le=2**31, description="Without heading.")] = None,
    offset: Annotated[int, Query(ge=0, le=2**31)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_WINDOW)] = DEFAULT_WINDOW,
) -> SectionOut:
    """A section of an indexed file's text, by heading path or by a character range [start,
    end) of the text search hits point into (their `start`/`end`): the web app's link from a
    hit to its section. Windowed like the `read_section` tool; 404 for files not yours."""
    window = await knowledge_store(runtime).reader.read_section(
        session,
        context,
        file_id,
        heading_path=heading or None,
        start=start,
        end=end,
        offset=offset,
        limit=limit,
    )
    return SectionOut(
        file_id=window.file_id,
        file_name=window.file_name,
        heading_path=window.heading_path,
        content=window.content,
        offset=window.offset,
        section_start=window.section_start,
        total_length=window.total_length,
        next_offset=window.next_offset,
    )

"""/v1/knowledge/search and the per-file index endpoints (K1–K3)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, status
from pydantic import BaseModel, Field
from sqlalchemy import select

from agentur.api.dependencies import ContextDep, FileServiceDep, RuntimeDep, SessionDep
from agentur.api.openapi import limit_from_setting
from agentur.api.parameters import NOT_BLANK
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.context import utc_now
from agentur.json_numbers import JsonInt
from agentur.knowledge.search import MAX_QUERY_CHARS, SearchHit
from agentur.knowledge.search_legs import SearchFilters
from agentur.knowledge.store import knowledge_store
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


@router.post("/knowledge/search")
async def search_knowledge(
    body: SearchIn, runtime: RuntimeDep, session: SessionDep, context: ContextDep
) -> SearchOut:
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

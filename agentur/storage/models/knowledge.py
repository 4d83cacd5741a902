"""Tables of the knowledge part.

Besides these ORM tables the migration creates per dialect:
- SQLite: `knowledge_chunks_fts` (FTS5, contentless, rowid = chunk id), its document
  frequencies `knowledge_chunks_vocab` (fts5vocab), and one sqlite-vec
  `vec0` table per embedding dimension, `knowledge_vec_<dims>` (rowid = chunk id, partitioned by
  mandate, or `global` for global files). Tables for new dimensions are created on first use.
- PostgreSQL: `knowledge_chunks.tsv` (tsvector, GIN, stored out of line) with its length in
  `knowledge_chunks.tsv_length`, BM25 statistics per partition in
  `knowledge_term_stats` (part, term, df, total; kept by statement triggers on
  knowledge_chunks), and `knowledge_chunks.embedding` (an
  untyped pgvector column) with one partial HNSW index per dimension on
  `(embedding::vector(<dims>)) vector_cosine_ops WHERE embedding_dims = <dims>`.
So one schema holds vectors of any model; a query only compares vectors of the same model.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime

# SQLite only aliases the rowid for exactly `INTEGER PRIMARY KEY` (FTS5/vec0 rowids join on it).
ChunkId = BigInteger().with_variant(Integer(), "sqlite")
# Index statuses whose chunks and text can be read (lexical_only: no vectors yet).
READABLE_STATUSES = ("indexed", "lexical_only")
# The file holds no text to index (a recording, an archive, an unknown binary): no chunks,
# `error` says why; settled like `failed`, looked at again only when the file changes.
NO_TEXT = "no_text"


class FileContentIndex(IdMixin, TimestampMixin, Base):
    """The structure index of one workspace file (no LLM involved) and its indexing state."""

    __tablename__ = "knowledge_file_indexes"
    __table_args__ = (Index("ix_knowledge_file_indexes_status", "status"),)

    file_id: Mapped[str] = mapped_column(ForeignKey("files.id", ondelete="CASCADE"), unique=True)
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = mapped_column(String(36))
    feature_instance_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    scope: Mapped[str] = mapped_column(String(32))  # copied from the file
    # pending | indexing | indexed | lexical_only (no vectors: the embedder failed; retried)
    # | failed | no_text (a recording, an archive, a binary: nothing to index as text)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # What the stored index was built from; a difference means "re-index".
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    config_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    embedding_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    is_neutralized: Mapped[bool] = mapped_column(Boolean, default=False)
    # not_required | neutralized | failed
    neutralization_status: Mapped[str] = mapped_column(String(16), default="not_required")
    format: Mapped[str | None] = mapped_column(String(32), nullable=True)
    structure: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # The extracted (and, when required, neutralized) text all offsets point into.
    extracted_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    # Progress of the running (or last) indexing: chunks embedded of chunks in the file, and
    # when embedding started (for the ETA).
    chunks_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    chunks_done: Mapped[int | None] = mapped_column(Integer, nullable=True)
    progress_started_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    indexed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class ContentChunk(Base):
    """A searchable piece of a file: text, where it came from, and (beside it) its vector."""

    __tablename__ = "knowledge_chunks"
    __table_args__ = (
        UniqueConstraint("file_id", "ordinal"),
        Index("ix_knowledge_chunks_mandate_scope", "mandate_id", "scope"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(ChunkId, primary_key=True, autoincrement=True)
    file_id: Mapped[str] = mapped_column(ForeignKey("files.id", ondelete="CASCADE"), index=True)
    mandate_id: Mapped[str] = mapped_column(String(36))
    scope: Mapped[str] = mapped_column(String(32))
    ordinal: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    heading_path: Mapped[list[str]] = mapped_column(JSON, default=list)
    content_type: Mapped[str] = mapped_column(String(16))
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    start_offset: Mapped[int] = mapped_column(Integer)
    end_offset: Mapped[int] = mapped_column(Integer)
    language: Mapped[str] = mapped_column(String(16), default="simple")
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    embedding_dims: Mapped[int | None] = mapped_column(Integer, nullable=True)


class RoundMemory(IdMixin, TimestampMixin, Base):
    """What one agent round did, for semantic reuse after summarization."""

    __tablename__ = "knowledge_round_memories"
    __table_args__ = (UniqueConstraint("run_id", "round_index"),)

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[str] = mapped_column(String(36), index=True)
    workflow_id: Mapped[str] = mapped_column(String(36), index=True)
    run_id: Mapped[str] = mapped_column(String(36))
    round_index: Mapped[int] = mapped_column(Integer)
    file_refs: Mapped[list[str]] = mapped_column(JSON, default=list)
    tool_results: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    decisions: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")  # what was embedded
    # Few rows per workflow: vectors are compared in Python, so JSON keeps both backends alike.
    embedding: Mapped[list[float] | None] = mapped_column(JSON, nullable=True)
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)


class WorkflowMemory(IdMixin, TimestampMixin, Base):
    """A workflow-scoped fact or entity (key/value), optionally embedded."""

    __tablename__ = "knowledge_workflow_memories"
    __table_args__ = (UniqueConstraint("mandate_id", "workflow_id", "key"),)

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    workflow_id: Mapped[str] = mapped_column(String(36), index=True)
    key: Mapped[str] = mapped_column(String(200))
    value: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16), default="fact")  # fact | entity
    embedding: Mapped[list[float] | None] = mapped_column(JSON, nullable=True)
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)

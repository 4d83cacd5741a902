"""Settings of the knowledge store (env `AGENTUR_KNOWLEDGE_*`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentur.config import PartSettings, count, seconds


class KnowledgeSettings(PartSettings):
    knowledge_embedding_model: str = Field(
        default="local:multilingual-e5-small",
        description="Model id (`provider:name`) the store embeds chunks and queries with; empty: "
        "no vectors (lexical search only). Changing it re-embeds every file.",
    )
    knowledge_chunk_size: int = Field(
        default=1_200, ge=100, le=20_000, description="Largest chunk, in characters."
    )
    knowledge_chunk_overlap: int = Field(
        default=120, ge=0, le=5_000, description="Characters shared by neighbouring chunks."
    )
    knowledge_table_max_chars: int = Field(
        default=4_000,
        ge=100,
        description="Tables up to this size stay one chunk; larger ones split by rows.",
    )
    knowledge_embedding_batch: int = count(
        32, "Texts per embedding call while indexing.", most=2_048
    )
    knowledge_max_extract_bytes: int = count(
        50 * 1024 * 1024,
        "Larger files get an index with status `failed` instead of being parsed "
        "(and tools refuse to extract them).",
    )
    knowledge_worker_poll_seconds: float = seconds(
        2.0, "How often the background indexer looks for new work."
    )
    knowledge_worker_lease_seconds: float = seconds(
        600.0, "A file claimed longer ago than this by a worker that vanished is retried."
    )
    knowledge_search_candidates: int = count(
        50, "Hits each search leg contributes to the fusion.", most=1_000
    )
    knowledge_lexical_budget: int = Field(
        default=5_000,
        ge=100,
        le=1_000_000,
        description="Postings (term × chunk) one lexical pass may touch: the rarest query terms "
        "within it find candidates, common ones only add to their score; bounds latency.",
    )
    knowledge_lexical_rescored: int = count(
        200,
        "PostgreSQL: lexical candidates, best by BM25 without term frequencies "
        "(IDF of the words they match, chunk length), that get full BM25; bounds latency.",
        most=100_000,
    )
    knowledge_lexical_checked: int = count(
        400,
        "PostgreSQL: lexical candidates (from the caller's tenant), best by the "
        "cheap score, whose file visibility and filters are checked; the best visible ones get "
        "full BM25. When fewer than the leg's hits pass, every candidate is checked.",
        most=1_000_000,
    )
    # Off by default: on this 2-core machine the second connection cost CPU and time (at 1M
    # chunks hybrid p50 106.8 ms and 105.9 ms CPU per query with it, 60.8 ms and 59.3 ms
    # without; at 10k chunks 23.1 / 22.3 ms, p99 52.8 / 42.1 ms; bench/search_scale.py).
    knowledge_search_concurrent_legs: bool = Field(
        default=False,
        description="PostgreSQL: a hybrid search runs its vector leg on a second pooled "
        "connection while the lexical leg runs (only when the pool has an idle one).",
    )
    knowledge_vector_oversample: int = count(
        3,
        "SQLite: candidates per wanted hit that the one-bit vector index hands to "
        "exact cosine ranking; higher finds more of the exact nearest, slower.",
        most=100,
    )
    knowledge_vector_ef_search: int = count(
        200,
        "PostgreSQL: HNSW candidate list per vector search (`hnsw.ef_search`, at "
        "least the leg's candidates) while the chunk table is smaller than "
        "`knowledge_vector_large_table`; higher finds more of the exact nearest, slower, and "
        "makes the planner prefer an exact scan on small tables (10k chunks: from 250 on).",
        most=1_000,
    )
    knowledge_vector_ef_search_large: int = count(
        800,
        "PostgreSQL: HNSW candidate list once the chunk table holds "
        "`knowledge_vector_large_table` chunks (a larger graph needs a longer list for the "
        "same recall; at 1M chunks 400 found 0.940 of the exact top 10 on one build, 800 "
        "0.956).",
        most=1_000,
    )
    knowledge_vector_large_table: int = Field(
        default=500_000,
        ge=0,
        description="PostgreSQL: chunks in the table (the planner's estimate) from which "
        "`knowledge_vector_ef_search_large` holds.",
    )
    knowledge_max_search_limit: int = count(50, "Largest `limit` a search accepts.", most=1_000)
    knowledge_rrf_k: int = Field(
        default=60, ge=1, description="Reciprocal rank fusion constant (score = Σ 1/(k + rank))."
    )
    knowledge_section_cache_size: int = Field(
        default=64,
        ge=0,
        description="Extracted documents kept in memory for windowed reads, and extractions "
        "made for tools reading files not indexed yet.",
    )
    knowledge_context_budget_tokens: int = Field(
        default=2_000,
        ge=0,
        description="Tokens (≈ characters / 4) of the RAG block, split over its six layers.",
    )
    knowledge_memory_extraction: Literal["auto", "rules", "off"] = Field(
        default="auto",
        description="How a completed agent run's facts and entities reach its workflow's memory "
        "(context layer 4): `auto` one structured extraction call through the gateway when a "
        "model is available, else (and when it fails) simple rules; `rules` never a model; "
        "`off` nothing is written.",
    )
    knowledge_memory_facts_per_run: int = count(
        20, "Most facts and entities one run adds.", most=200
    )
    knowledge_memory_facts_per_workflow: int = count(
        200, "Facts and entities a workflow keeps; the least recently seen go first.", most=10_000
    )
    knowledge_memory_extraction_max_output_tokens: int = Field(
        default=800, ge=100, le=8_000, description="Output limit of the extraction call."
    )
    knowledge_index_executor: Literal["process", "thread"] = Field(
        default="process",
        description="Where indexing's CPU-heavy steps (extraction, chunking, local passage "
        "embeddings) run: `process`, one low-priority worker process, so searches and other "
        "requests keep the CPU; `thread`, threads of the indexing process (no extra process).",
    )
    knowledge_index_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="Nice level of the indexing worker process (higher: yields the CPU sooner).",
    )
    knowledge_index_inline_bytes: int = Field(
        default=32_768,
        ge=0,
        description="Files up to this size are extracted and chunked in a thread of the "
        "indexing process: for them a round trip to the worker process costs more than the work.",
    )
    knowledge_embedding_retry_seconds: float = seconds(
        300.0,
        "Files indexed while the embedder failed (status `lexical_only`) are "
        "re-embedded when their last try is older than this.",
    )
    knowledge_worker_enabled: bool = Field(
        default=True,
        description="Run the background indexer inside `agentur serve` (off: run "
        "`agentur index --worker` separately).",
    )

"""Settings of the per-tenant limits on expensive work (per worker, see `tenant_limits`)."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings, count


class BackpressureSettings(PartSettings):
    tenant_max_agent_runs: int = count(
        8,
        "Agent runs one mandate may have going at once on one worker (API and "
        "`/openai/v1` model `agentur-agent`; a run counts until it ends); more get 429.",
        most=10_000,
    )
    tenant_max_model_calls: int = count(
        16,
        "Gateway model calls one mandate may have going at once on one worker "
        "through `/openai/v1/chat/completions` (a stream counts until it ends); more get 429.",
        most=10_000,
    )
    tenant_max_searches: int = count(
        8,
        "Knowledge searches one mandate may have going at once on one worker; more get 429.",
        most=10_000,
    )
    tenant_max_visitor_messages: int = count(
        16,
        "Visitor messages (and `/openai/v1` `assistant:<id>` turns) of one "
        "mandate's assistants answered at once on one worker; more get 429.",
        most=10_000,
    )
    worker_max_expensive_requests: int = count(
        64,
        "Agent runs, model calls, searches and visitor messages of all mandates "
        "together that one worker takes at once; more get 503.",
        most=100_000,
    )
    admission_wait_seconds: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="How long an expensive request waits for a free slot under these limits "
        "before it is answered 429 (its mandate's limit) or 503 (the worker's).",
    )
    retry_after_seconds: int = Field(
        default=2,
        ge=1,
        le=3_600,
        description="`Retry-After` of a 429 or 503 that says the server is saturated (these "
        "limits, no free database connection).",
    )

"""The Prometheus metric objects, one module so every name and label set is in one place.

Labels are bounded sets only (route templates, never raw paths; tool, provider and model
names from configuration; statuses): no tenant, user or prompt ever becomes a label. Each
process has its own registry (the default one, with process/platform collectors); with
several workers every worker exposes its own `/metrics` (see README, Observability)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Seconds; spans sub-millisecond routes up to long agent runs and slow model calls.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

http_requests = Counter(
    "agentur_http_requests",
    "HTTP requests by method, route template and status code.",
    ["method", "route", "status"],
)
http_request_seconds = Histogram(
    "agentur_http_request_seconds",
    "HTTP request latency (until the response is complete) by method and route template.",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
agent_runs = Counter("agentur_agent_runs", "Finished agent runs by final status.", ["status"])
agent_rounds = Counter("agentur_agent_rounds", "Model rounds of finished agent runs.")
agent_run_seconds = Histogram(
    "agentur_agent_run_seconds", "Agent run duration.", ["status"], buckets=LATENCY_BUCKETS
)
tool_calls = Counter(
    "agentur_tool_calls", "Tool calls by tool and outcome (ok | error).", ["tool", "outcome"]
)
tool_call_seconds = Histogram(
    "agentur_tool_call_seconds", "Tool call duration by tool.", ["tool"], buckets=LATENCY_BUCKETS
)
gateway_calls = Counter(
    "agentur_gateway_calls",
    "AI gateway provider calls (each model tried, after retries) by outcome (ok | error).",
    ["provider", "model", "operation", "outcome"],
)
gateway_call_seconds = Histogram(
    "agentur_gateway_call_seconds",
    "AI gateway provider call duration (retries included).",
    ["provider", "model", "operation"],
    buckets=LATENCY_BUCKETS,
)
gateway_tokens = Counter(
    "agentur_gateway_tokens",
    "Billed tokens by provider, model, operation and direction (input | output).",
    ["provider", "model", "operation", "direction"],
)
gateway_cost_chf = Counter(
    "agentur_gateway_cost_chf",
    "Billed cost in CHF by provider, model and operation.",
    ["provider", "model", "operation"],
)
index_pending_files = Gauge(
    "agentur_index_pending_files",
    "Files the index worker found stale at its last poll (capped at its batch size).",
)
indexed_files = Counter(
    "agentur_indexed_files", "Files the indexer processed by outcome status.", ["status"]
)
indexed_chunks = Counter(
    "agentur_indexed_chunks",
    "Chunks written to the knowledge index; rate() of it is chunks per second.",
)
search_seconds = Histogram(
    "agentur_knowledge_search_seconds",
    "Knowledge search latency (query embedding, both legs, fusion, loading the hits).",
    buckets=LATENCY_BUCKETS,
)

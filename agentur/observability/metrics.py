"""The Prometheus metric objects, one module so every name and label set is in one place.

Where an OpenTelemetry semantic convention exists the metric follows it in its Prometheus form
(dots become underscores, the unit `s` a `_seconds` suffix, `{token}` is dropped; the buckets
the convention advises), so stock dashboards fit: `http.server.request.duration`,
`gen_ai.client.operation.duration`, `gen_ai.client.token.usage`. What has no convention keeps
an `agentur_` name. The README's Observability section maps the former names.

Labels are bounded sets only (route templates, never raw paths; provider and model names from
configuration; tool names of the code, connection tools collapsed to their kind; statuses):
no tenant, user, prompt or user-chosen name ever becomes a label. Each process has its own
registry (the default one, with process/platform collectors); with several workers every
worker exposes its own `/metrics` (see README, Observability)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Seconds; spans sub-millisecond routes up to long agent runs and slow model calls.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
# The boundaries the conventions advise for each instrument.
HTTP_DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
GEN_AI_DURATION_BUCKETS = tuple(0.01 * 2**power for power in range(14))  # 0.01 … 81.92
TOKEN_BUCKETS = tuple(4**power for power in range(14))  # 1 … 67108864

http_server_request_duration = Histogram(
    "http_server_request_duration_seconds",
    "Duration of HTTP server requests (http.server.request.duration), until the response is "
    "complete, by method, route template and status code.",
    ["http_request_method", "http_route", "http_response_status_code"],
    buckets=HTTP_DURATION_BUCKETS,
    unit="seconds",
)
gen_ai_client_operation_duration = Histogram(
    "gen_ai_client_operation_duration_seconds",
    "GenAI operation duration (gen_ai.client.operation.duration): each model tried, retries "
    "included; error_type is empty for an answer.",
    ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "error_type"],
    buckets=GEN_AI_DURATION_BUCKETS,
    unit="seconds",
)
gen_ai_client_token_usage = Histogram(
    "gen_ai_client_token_usage",
    "Billed tokens per call (gen_ai.client.token.usage) by token type (input | output).",
    ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_token_type"],
    buckets=TOKEN_BUCKETS,
)
gateway_cost_chf = Counter(
    "agentur_gateway_cost_chf",
    "Billed cost in CHF by provider, model and the gateway's operation type.",
    ["gen_ai_provider_name", "gen_ai_request_model", "agentur_operation"],
)
agent_runs = Counter("agentur_agent_runs", "Finished agent runs by final status.", ["status"])
agent_rounds = Counter("agentur_agent_rounds", "Model rounds of finished agent runs.")
agent_run_seconds = Histogram(
    "agentur_agent_run_seconds",
    "Agent run duration.",
    ["status"],
    buckets=LATENCY_BUCKETS,
    unit="seconds",
)
tool_calls = Counter(
    "agentur_tool_calls", "Tool calls by tool and outcome (ok | error).", ["tool", "outcome"]
)
tool_call_seconds = Histogram(
    "agentur_tool_call_seconds",
    "Tool call duration by tool.",
    ["tool"],
    buckets=LATENCY_BUCKETS,
    unit="seconds",
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
    unit="seconds",
)

"""Agent settings: tool limits, summarization thresholds, hook time limits, egress.

Flat names with the `agent_` prefix, so they read as `AGENTUR_AGENT_*` in the environment.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from agentur.config import MEBIBYTE, PartSettings, count, seconds


class AgentSettings(PartSettings):
    agent_tool_timeout_seconds: float = seconds(
        60.0, "Time limit of one tool call unless the tool sets its own."
    )
    agent_max_parallel_tools: int = count(
        8, "Read-only tool calls of one turn run at most this many at once.", most=64
    )
    agent_max_tool_result_chars: int = Field(
        default=20_000,
        ge=500,
        description="A tool result longer than this goes back to the model as a window plus "
        "`total_length` and a `read_tool_result` hint, never cut silently.",
    )
    agent_rag_timeout_seconds: float = seconds(
        10.0, "Time limit of the knowledge (RAG) hook per round."
    )
    agent_round_memory_timeout_seconds: float = seconds(
        10.0, "Time limit of the round-memory hook per round."
    )
    agent_workflow_memory_timeout_seconds: float = seconds(
        30.0,
        "Time limit of the workflow-memory hook after a completed run (it may "
        "make one extraction call through the gateway).",
    )
    agent_summarize_at_share: float = Field(
        default=0.7,
        gt=0.05,
        lt=1.0,
        description="Summarize older turns when the estimated prompt exceeds this share of "
        "the model's context window.",
    )
    agent_keep_recent_turns: int = count(
        4, "Most recent turns that summarization keeps verbatim.", most=50
    )
    agent_summary_max_output_tokens: int = Field(
        default=1_024, ge=64, description="Longest summary of older turns, in tokens."
    )
    agent_min_output_tokens: int = count(
        256,
        "A round needs budget for at least this many output tokens, else the run "
        "stops with `budget_exceeded`.",
    )
    agent_history_messages: int = Field(
        default=20,
        ge=0,
        le=500,
        description="Earlier messages of the workflow given to the model as conversation.",
    )
    agent_temperature: float = Field(
        default=0.0,
        ge=0,
        le=2,
        description="Sampling temperature of an agent run that sets none (a run's "
        "`temperature` overrides it; reasoning models get none). 0: the model's likeliest "
        "call or answer, so a run can be repeated.",
    )
    agent_store_trace: bool = Field(
        default=True, description="Persist each run's trace (rounds, model and tool calls)."
    )
    agent_cancel_on_disconnect: bool = Field(
        default=True,
        description="Cancel a run when the HTTP client that started it disconnects.",
    )
    agent_heartbeat_seconds: float = seconds(
        15.0,
        "How often a worker marks its runs as alive (one UPDATE for all of them), "
        "and how often it looks for runs whose worker died.",
    )
    agent_heartbeat_timeout_seconds: float = seconds(
        60.0,
        "A running run whose heartbeat is older than this lost its worker: it is "
        "marked `failed` and its budget holds are released. Several heartbeat intervals, so a "
        "busy worker is not taken for dead.",
    )
    agent_egress_timeout_seconds: float = seconds(
        20.0, "Time limit of one outbound fetch by a tool."
    )
    agent_egress_max_bytes: int = count(10 * MEBIBYTE, "Largest response body a tool may fetch.")
    agent_egress_max_redirects: int = Field(
        default=5, ge=0, le=20, description="Redirects a tool's fetch follows (each re-checked)."
    )

    # `read_url` reads web pages for the model: tighter caps than any tool fetch, named after
    # the tool family (AGENTUR_WEB_*) because operators look for them there.
    web_max_bytes: int = count(
        5 * MEBIBYTE,
        "Largest page or document `read_url` downloads; a larger one is refused, never cut.",
    )
    web_timeout_seconds: float = seconds(
        20.0, "Time limit of one `read_url` download, redirects included."
    )

    @model_validator(mode="after")
    def _timeout_exceeds_heartbeat(self) -> AgentSettings:
        if self.agent_heartbeat_timeout_seconds <= self.agent_heartbeat_seconds:
            raise ValueError(
                "agent_heartbeat_timeout_seconds must be longer than agent_heartbeat_seconds, "
                "or live runs would be taken for dead between two heartbeats"
            )
        return self

"""Tables of the agent part: one row per run, and its trace entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime


class AgentRun(IdMixin, TimestampMixin, Base):
    __tablename__ = "agent_runs"
    # The recovery sweep's query: running runs whose heartbeat is old.
    __table_args__ = (Index("ix_agent_runs_status_heartbeat", "status", "heartbeat_at"),)

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    workflow_id: Mapped[str | None] = mapped_column(
        ForeignKey("workflows.id", ondelete="SET NULL"), nullable=True, index=True
    )
    prompt: Mapped[str] = mapped_column(Text, default="")
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # running, completed, budget_exceeded, max_rounds_reached, failed, cancelled
    status: Mapped[str] = mapped_column(String(32), default="running")
    final_text: Mapped[str] = mapped_column(Text, default="")
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    cost_chf: Mapped[float] = mapped_column(Float, default=0.0)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    models: Mapped[list[str]] = mapped_column(JSON, default=list)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    # Refreshed by the worker running it; a running run with an old one lost its worker.
    heartbeat_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class AgentTraceEntry(IdMixin, TimestampMixin, Base):
    """One step of a run: status change, model call, tool call, summary, toolbox activation."""

    __tablename__ = "agent_trace_entries"
    __table_args__ = (UniqueConstraint("run_id", "sequence"),)

    run_id: Mapped[str] = mapped_column(ForeignKey("agent_runs.id", ondelete="CASCADE"), index=True)
    # Copied from the run so tenant filters need no join.
    mandate_id: Mapped[str] = mapped_column(String(36), index=True)
    sequence: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    round_index: Mapped[int | None] = mapped_column(Integer, nullable=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)

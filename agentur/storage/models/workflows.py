"""Workflows (conversation containers) and their messages; agent runs persist into them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentur.names import MAX_NAME_LENGTH_CEILING as NAME_COLUMN_LENGTH
from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime


class Workflow(IdMixin, TimestampMixin, Base):
    __tablename__ = "workflows"

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    feature_instance_id: Mapped[str | None] = mapped_column(
        ForeignKey("feature_instances.id", ondelete="SET NULL"), nullable=True
    )
    title: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), default="")
    # Set by the `workflow_archive` action; archived workflows leave the history list.
    archived_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class WorkflowMessage(IdMixin, TimestampMixin, Base):
    __tablename__ = "workflow_messages"
    __table_args__ = (UniqueConstraint("workflow_id", "sequence"),)

    workflow_id: Mapped[str] = mapped_column(
        ForeignKey("workflows.id", ondelete="CASCADE"), index=True
    )
    sequence: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text, default="")
    # Tool calls, tool results and other structured parts of a message.
    data: Mapped[dict | None] = mapped_column(JSON, nullable=True)

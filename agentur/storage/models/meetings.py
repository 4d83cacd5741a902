"""Tables of the meeting assistant: a live session (one per meeting) and its operator
directives. The live part (the worker that listens and answers, the event stream) lives in
the process that holds the session; these rows let every worker find and check it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from agentur.names import MAX_NAME_LENGTH_CEILING as NAME_COLUMN_LENGTH
from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime


class MeetingSession(IdMixin, TimestampMixin, Base):
    __tablename__ = "meeting_sessions"

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    workflow_id: Mapped[str] = mapped_column(
        ForeignKey("workflows.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), default="")
    # The owner's request context at creation (language, time zone): background work runs in it.
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    budget_chf: Mapped[float] = mapped_column(Float, default=0.0)
    spent_chf: Mapped[float] = mapped_column(Float, default=0.0)
    status: Mapped[str] = mapped_column(String(16), default="live")  # live, ended
    summary: Mapped[str] = mapped_column(Text, default="")
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class MeetingDirective(IdMixin, TimestampMixin, Base):
    __tablename__ = "meeting_directives"

    session_id: Mapped[str] = mapped_column(
        ForeignKey("meeting_sessions.id", ondelete="CASCADE"), index=True
    )
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # one_shot, persistent
    text: Mapped[str] = mapped_column(Text)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)

"""Tables of the assistant part: definitions, visitor keys, conversations, decision log,
replays. Every row carries `mandate_id`; every query filters by it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from agentur.names import MAX_NAME_LENGTH_CEILING as NAME_COLUMN_LENGTH
from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime


def _mandate() -> Mapped[str]:
    return mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"), index=True)


def _assistant() -> Mapped[str]:
    return mapped_column(ForeignKey("assistants.id", ondelete="CASCADE"), index=True)


class Assistant(IdMixin, TimestampMixin, Base):
    __tablename__ = "assistants"

    mandate_id: Mapped[str] = _mandate()
    name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH))
    # The whole definition (AssistantDefinition) without the catalog credential.
    definition: Mapped[dict] = mapped_column(JSON)
    # The API-catalog credential, Fernet-encrypted; never returned by any API.
    credential_encrypted: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The labelled message set the nightly replay runs (None: no nightly replay).
    labels: Mapped[list | None] = mapped_column(JSON, nullable=True)


class AssistantVisitorKey(IdMixin, TimestampMixin, Base):
    __tablename__ = "assistant_visitor_keys"

    mandate_id: Mapped[str] = _mandate()
    assistant_id: Mapped[str] = _assistant()
    lookup_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class AssistantConversation(IdMixin, TimestampMixin, Base):
    __tablename__ = "assistant_conversations"

    mandate_id: Mapped[str] = _mandate()
    assistant_id: Mapped[str] = _assistant()
    # Flow position and collected variables; deterministic state, never model output.
    state: Mapped[dict] = mapped_column(JSON, default=dict)
    language: Mapped[str] = mapped_column(String(8), default="en")
    # The publishable key that started it (None: a mandate API key) and the SHA-256 of the
    # per-conversation secret token a visitor must present to continue or read it.
    visitor_key_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class AssistantMessage(IdMixin, TimestampMixin, Base):
    __tablename__ = "assistant_messages"

    mandate_id: Mapped[str] = _mandate()
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("assistant_conversations.id", ondelete="CASCADE"), index=True
    )
    sequence: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text, default="")
    # Decision path, sources, actions, thinking events of an assistant turn.
    data: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class AssistantDecision(IdMixin, TimestampMixin, Base):
    """The pre-flight decision log: shadow, routing and replay decisions."""

    __tablename__ = "assistant_decisions"

    mandate_id: Mapped[str] = _mandate()
    assistant_id: Mapped[str] = _assistant()
    conversation_id: Mapped[str | None] = mapped_column(String(36), nullable=True, index=True)
    replay_id: Mapped[str | None] = mapped_column(String(36), nullable=True, index=True)
    mode: Mapped[str] = mapped_column(String(16))
    message: Mapped[str] = mapped_column(Text)
    decision: Mapped[str] = mapped_column(String(300))
    answers: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    acted: Mapped[bool] = mapped_column(Boolean, default=False)


class AssistantReplay(IdMixin, TimestampMixin, Base):
    __tablename__ = "assistant_replays"

    mandate_id: Mapped[str] = _mandate()
    assistant_id: Mapped[str] = _assistant()
    total: Mapped[int] = mapped_column(Integer)
    changed: Mapped[int] = mapped_column(Integer)
    mismatched: Mapped[int] = mapped_column(Integer)
    # [{text, decision, previous, label}] in label-set order.
    results: Mapped[list] = mapped_column(JSON)


class VisitorRateWindow(Base):
    """Messages one publishable key sent in one minute, shared by every worker (the limit
    counts across all of them). Rows older than the previous minute are deleted."""

    __tablename__ = "visitor_rate_windows"

    key_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    window: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # minutes since epoch
    hits: Mapped[int] = mapped_column(Integer)

"""Users, mandates (tenants), memberships, feature instances and API keys."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentur.names import MAX_NAME_LENGTH_CEILING as NAME_COLUMN_LENGTH
from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime, utc_now


class User(IdMixin, TimestampMixin, Base):
    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), default="")
    is_platform_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)


class Mandate(IdMixin, TimestampMixin, Base):
    __tablename__ = "mandates"

    name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), unique=True)


class Membership(IdMixin, TimestampMixin, Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("user_id", "mandate_id"),)

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(16))


class FeatureInstance(IdMixin, TimestampMixin, Base):
    __tablename__ = "feature_instances"

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    feature_code: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), default="")
    # Domain hints for the feature-data sub-agent of this instance, e.g. conventions.
    agent_hints: Mapped[str | None] = mapped_column(Text, nullable=True)


class ApiKey(IdMixin, TimestampMixin, Base):
    __tablename__ = "api_keys"

    # The public part of the key, used to find the row; the secret part is only stored hashed.
    lookup_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH), default="")
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class WebSession(IdMixin, Base):
    """A signed-in browser. Only the SHA-256 of the cookie's token is stored."""

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The mandate requests act in; one of the session's keys speaks for it.
    active_mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class WebSessionKey(IdMixin, Base):
    """An API key signed in with a session: it grants the session its mandate, nothing more."""

    __tablename__ = "web_session_keys"
    __table_args__ = (UniqueConstraint("session_id", "mandate_id"),)

    session_id: Mapped[str] = mapped_column(
        ForeignKey("web_sessions.id", ondelete="CASCADE"), index=True
    )
    api_key_id: Mapped[str] = mapped_column(
        ForeignKey("api_keys.id", ondelete="CASCADE"), index=True
    )
    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)

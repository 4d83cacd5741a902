"""Connections: a user's (personal) or a mandate's (shared, admin-managed) access to an
outside system — mail, a WebDAV share, … Credentials are stored only as a Fernet token."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from agentur.names import MAX_NAME_LENGTH_CEILING as NAME_COLUMN_LENGTH
from agentur.storage.models.base import Base, IdMixin, TimestampMixin


class Connection(IdMixin, TimestampMixin, Base):
    __tablename__ = "connections"
    __table_args__ = (Index("ix_connections_mandate_owner", "mandate_id", "owner_id"),)

    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    # None: shared with the whole mandate (managed by its admins).
    owner_id: Mapped[str | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True
    )
    kind: Mapped[str] = mapped_column(String(32))
    display_name: Mapped[str] = mapped_column(String(NAME_COLUMN_LENGTH))
    settings_json: Mapped[str] = mapped_column(Text, default="{}")
    sealed_credentials: Mapped[str] = mapped_column(Text, default="")
    neutralize: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="untested")
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)

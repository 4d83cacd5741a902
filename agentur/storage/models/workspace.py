"""Workspace folders and files. File bytes live in the blob store, addressed by sha256."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base, IdMixin, TimestampMixin

# Files and folders at the top level have no parent; unique constraints need a non-null key.
ROOT_FOLDER_KEY = "root"


class Folder(IdMixin, TimestampMixin, Base):
    """A user's folder inside a mandate. Each member has their own tree."""

    __tablename__ = "folders"
    __table_args__ = (UniqueConstraint("mandate_id", "owner_id", "parent_key", "name"),)

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    parent_id: Mapped[str | None] = mapped_column(
        ForeignKey("folders.id", ondelete="CASCADE"), nullable=True, index=True
    )
    parent_key: Mapped[str] = mapped_column(String(36), default=ROOT_FOLDER_KEY)
    name: Mapped[str] = mapped_column(String(1024))


class File(IdMixin, TimestampMixin, Base):
    __tablename__ = "files"
    __table_args__ = (
        UniqueConstraint("mandate_id", "owner_id", "folder_key", "name"),
        Index("ix_files_mandate_scope", "mandate_id", "scope"),
    )

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    folder_id: Mapped[str | None] = mapped_column(
        ForeignKey("folders.id", ondelete="CASCADE"), nullable=True, index=True
    )
    folder_key: Mapped[str] = mapped_column(String(36), default=ROOT_FOLDER_KEY)
    feature_instance_id: Mapped[str | None] = mapped_column(
        ForeignKey("feature_instances.id", ondelete="SET NULL"), nullable=True
    )
    name: Mapped[str] = mapped_column(String(1024))
    scope: Mapped[str] = mapped_column(String(32))
    neutralize: Mapped[bool] = mapped_column(Boolean, default=False)
    size: Mapped[int] = mapped_column(BigInteger)
    mime_type: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64), index=True)


class FileTag(Base):
    __tablename__ = "file_tags"

    file_id: Mapped[str] = mapped_column(
        ForeignKey("files.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(String(100), primary_key=True, index=True)

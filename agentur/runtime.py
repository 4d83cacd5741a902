"""The process-wide parts every request and command shares: settings, database, blob store.

Built once at start-up (server lifespan, CLI command) and handed down; nothing global.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentur.config import Settings
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from agentur.storage.migrate import upgrade_database
from agentur.workspace.files import WorkspaceLimits


@dataclass
class Runtime:
    settings: Settings
    database: Database
    blobs: BlobStore

    @classmethod
    def from_settings(cls, settings: Settings) -> Runtime:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        return cls(
            settings=settings,
            database=Database(settings.resolved_database_url),
            blobs=BlobStore(settings.blob_dir),
        )

    @property
    def workspace_limits(self) -> WorkspaceLimits:
        return WorkspaceLimits(
            max_upload_bytes=self.settings.max_upload_bytes,
            max_name_length=self.settings.max_name_length,
            default_read_window=self.settings.default_read_window,
            max_read_window=self.settings.max_read_window,
        )

    async def migrate(self) -> None:
        await upgrade_database(self.database.engine)

    async def close(self) -> None:
        await self.database.dispose()

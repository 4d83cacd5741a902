"""The process-wide parts every request and command shares: settings (every part's, composed
once by `agentur.settings.AllSettings`), database, blob store and the AI gateway. Built once at
start-up (server lifespan, CLI command) and handed down; nothing global.

The parts the runtime composes (agent, tools, knowledge store) receive and name this type, never
`agentur.runtime.Runtime`: the runtime extends it with the wiring and imports those parts, so a
part naming the runtime itself would close an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Self

from agentur.ai.service import AiService
from agentur.config import Settings
from agentur.egress.settings import use_allowed_hosts
from agentur.features.feature_data import FeatureData
from agentur.features.result_cache import ResultCache
from agentur.names import use_max_name_length
from agentur.settings import AllSettings
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database, PoolSizing
from agentur.storage.migrate import upgrade_database
from agentur.storage.private_files import secure_data_dir
from agentur.workspace.files import WorkspaceLimits

if TYPE_CHECKING:
    from agentur.ai.settings import AiSettings
    from agentur.storage.notify_channel import NotifyChannel
    from agentur.workspace.document_text import DocumentTexts


@dataclass
class RuntimeParts:
    settings: Settings  # the core settings (`all_settings.core`)
    database: Database
    blobs: BlobStore
    ai: AiService
    all_settings: AllSettings = field(repr=False)  # every part's; `settings` is its `core`
    channels: dict[str, NotifyChannel] = field(default_factory=dict, repr=False)
    # Feature-data query results of this worker, shared by every run and request.
    _feature_data: FeatureData | None = field(default=None, repr=False)
    # The text of any workspace file for the tools (composed by `agentur.runtime.Runtime`).
    documents: DocumentTexts | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.all_settings.core is not self.settings:
            self.all_settings = self.all_settings.with_parts(core=self.settings)
        # Request models check names while they are parsed, before any part is at hand.
        use_max_name_length(self.settings.max_name_length)
        use_allowed_hosts(self.all_settings.egress.allowed)

    @property
    def feature_data(self) -> FeatureData:
        if self._feature_data is None:
            cache = ResultCache(
                ttl_seconds=self.all_settings.features.feature_cache_seconds,
                max_entries=self.all_settings.features.feature_cache_entries,
            )
            self._feature_data = FeatureData(self.database, cache)
        return self._feature_data

    @classmethod
    def from_settings(
        cls, settings: Settings | AllSettings | None = None, ai_settings: AiSettings | None = None
    ) -> Self:
        """A runtime over `settings`: all of them, or the core ones (the other parts' then
        come from the environment, now); `ai_settings` replaces the AI gateway's."""
        if not isinstance(settings, AllSettings):
            settings = AllSettings.from_environment(settings)
        if ai_settings is not None:
            settings = settings.with_parts(ai=ai_settings)
        return cls._from_all_settings(settings)

    @classmethod
    def _from_all_settings(cls, all_settings: AllSettings) -> Self:
        settings = all_settings.core
        secure_data_dir(settings.data_dir, settings.resolved_database_url)
        database = Database(
            settings.resolved_database_url,
            PoolSizing(
                settings.database_pool_size,
                settings.database_max_overflow,
                settings.database_pool_timeout_seconds,
                settings.database_busy_timeout_seconds,
                settings.database_background_wait_seconds,
            ),
        )
        return cls(
            settings=settings,
            database=database,
            blobs=BlobStore(settings.blob_dir, settings.blob_grace_seconds),
            ai=AiService.from_settings(
                all_settings.ai,
                database,
                settings.data_dir,
                all_settings.vendors,
                all_settings.openai_compatible_server,
            ),
            all_settings=all_settings,
        )

    @property
    def workspace_limits(self) -> WorkspaceLimits:
        return WorkspaceLimits(
            max_upload_bytes=self.settings.max_upload_bytes,
            max_name_length=self.settings.max_name_length,
            default_read_window=self.settings.default_read_window,
            max_read_window=self.settings.max_read_window,
        )

    def broadcast(self, channel: str) -> NotifyChannel | None:
        """A channel to every worker on this database; None on SQLite (one process)."""
        if self.database.is_sqlite:
            return None
        from agentur.storage.notify_channel import NotifyChannel

        if channel not in self.channels:
            self.channels[channel] = NotifyChannel(self.database, channel)
        return self.channels[channel]

    async def migrate(self) -> None:
        await upgrade_database(self.database.engine)

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.aclose()
        await self.ai.aclose()
        await self.database.dispose()

"""The process-wide parts every request and command shares: settings, database, blob store.

Built once at start-up (server lifespan, CLI command) and handed down; nothing global.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.config import Settings
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from agentur.storage.migrate import upgrade_database
from agentur.storage.private_files import secure_data_dir
from agentur.workspace.files import WorkspaceLimits

if TYPE_CHECKING:
    from agentur.agent.dependencies import AgentDependencies
    from agentur.agent.settings import AgentSettings


@dataclass
class Runtime:
    settings: Settings
    database: Database
    blobs: BlobStore
    ai: AiService

    @classmethod
    def from_settings(cls, settings: Settings, ai_settings: AiSettings | None = None) -> Runtime:
        secure_data_dir(settings.data_dir, settings.resolved_database_url)
        database = Database(settings.resolved_database_url)
        return cls(
            settings=settings,
            database=database,
            blobs=BlobStore(settings.blob_dir, settings.blob_grace_seconds),
            ai=AiService.from_settings(ai_settings or AiSettings(), database, settings.data_dir),
        )

    @property
    def workspace_limits(self) -> WorkspaceLimits:
        return WorkspaceLimits(
            max_upload_bytes=self.settings.max_upload_bytes,
            max_name_length=self.settings.max_name_length,
            default_read_window=self.settings.default_read_window,
            max_read_window=self.settings.max_read_window,
        )

    def agent_dependencies(self, settings: AgentSettings | None = None) -> AgentDependencies:
        """The agent wired to this runtime: the gateway plus the knowledge store's RAG and
        round-memory hooks. The runtime is the composition root, so the agent itself never
        imports the knowledge store."""
        from agentur.agent.dependencies import AgentDependencies
        from agentur.agent.settings import AgentSettings
        from agentur.knowledge.hooks import knowledge_hooks

        return AgentDependencies(
            ai=self.ai,
            runtime=self,
            settings=settings or AgentSettings(),
            **knowledge_hooks(self),  # type: ignore[arg-type]
        )

    async def migrate(self) -> None:
        await upgrade_database(self.database.engine)

    async def close(self) -> None:
        await self.ai.aclose()
        await self.database.dispose()

"""Knowledge-store fixtures: a runtime whose gateway embeds with the scripted provider's
deterministic trigram vectors (fast, offline), and helpers to upload and index files."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext
from agentur.knowledge.settings import KnowledgeSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.storage.models import File
from agentur.workspace.files import FileService
from agentur.workspace.scopes import Scope

SCRIPTED_EMBEDDING = "scripted:scripted-embedding"


def knowledge_settings(**changes: object) -> KnowledgeSettings:
    values: dict[str, object] = {
        "knowledge_embedding_model": SCRIPTED_EMBEDDING,
        "knowledge_chunk_size": 400,
        "knowledge_chunk_overlap": 0,
        **changes,
    }
    return KnowledgeSettings(**values)  # type: ignore[arg-type]


@pytest.fixture
async def store(runtime: Runtime) -> AsyncIterator[KnowledgeStore]:
    await runtime.ai.aclose()
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    knowledge = KnowledgeStore(runtime, knowledge_settings())
    use_knowledge_store(runtime, knowledge)
    yield knowledge


async def _one(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def upload(
    runtime: Runtime,
    context: RequestContext,
    name: str,
    data: bytes | str,
    *,
    scope: Scope = Scope.personal,
    neutralize: bool = False,
) -> File:
    raw = data.encode() if isinstance(data, str) else data
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, context, runtime.workspace_limits)
        file = await files.upload(name, _one(raw), scope=scope, neutralize=neutralize)
        await files.commit()
        return file

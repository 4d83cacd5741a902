"""Start and stop the in-process indexing worker with the server (embedded default)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agentur.knowledge.store import knowledge_store

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts


def start_background_indexing(runtime: RuntimeParts) -> Callable[[], Awaitable[None]]:
    """Starts the worker unless `AGENTUR_KNOWLEDGE_WORKER_ENABLED=0`; returns its stopper."""
    store = knowledge_store(runtime)
    if store.settings.knowledge_worker_enabled:
        store.worker.start()
    return store.worker.stop

"""Embedding through the gateway (billed, neutralized per policy), for chunks and queries.

The store never reaches a model directly: `AiService.embed` with the configured model. The
local models take a `query: ` marker to embed a query as a query (E5 convention).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agentur.ai.providers.local_embedding import PROVIDER_NAME, QUERY_MARKER
from agentur.ai.service import AiService
from agentur.context import RequestContext


class EmbeddingUnavailable(Exception):
    """No embedding model is configured, reachable or willing; search falls back to lexical."""


@dataclass(frozen=True, slots=True)
class Vectors:
    vectors: list[list[float]]
    model: str


class Embedder:
    def __init__(self, ai: AiService | None, model: str, batch: int = 32) -> None:
        self.ai = ai
        self.model = model
        self.batch = batch

    @property
    def configured(self) -> bool:
        return bool(self.ai is not None and self.model)

    async def embed(
        self,
        texts: list[str],
        context: RequestContext,
        *,
        purpose: str,
        workflow_id: str | None = None,
        on_batch: Callable[[int], Awaitable[None]] | None = None,
    ) -> Vectors:
        """Vectors for `texts` in batches; `on_batch(done)` is awaited after each batch."""
        if not self.configured or self.ai is None:
            raise EmbeddingUnavailable("no embedding model is configured")
        vectors: list[list[float]] = []
        model = self.model
        try:
            for start in range(0, len(texts), self.batch):
                result = await self.ai.embed(
                    texts[start : start + self.batch],
                    purpose,
                    context,
                    workflow_id=workflow_id,
                    model=self.model,
                )
                vectors.extend(result.vectors)
                model = result.model
                if on_batch is not None:
                    await on_batch(len(vectors))
        except Exception as error:  # any gateway or provider failure means "no vectors"
            raise EmbeddingUnavailable(f"{type(error).__name__}: {error}") from error
        if len(vectors) != len(texts) or any(not v for v in vectors):
            raise EmbeddingUnavailable("the embedding model returned no vector for some texts")
        return Vectors(vectors, model)

    async def embed_query(
        self, query: str, context: RequestContext, *, workflow_id: str | None = None
    ) -> Vectors:
        marked = QUERY_MARKER + query if self.model.startswith(f"{PROVIDER_NAME}:") else query
        return await self.embed([marked], context, purpose="query", workflow_id=workflow_id)

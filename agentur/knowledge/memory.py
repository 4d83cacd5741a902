"""Agent memory: `RoundMemory` per agent round and `WorkflowMemory` facts/entities.

Both are tenant-bound: every read filters by the caller's mandate (and, for rounds of other
workflows, by the caller's own user). Vectors are optional; without them, recency ranks.
"""

from __future__ import annotations

import math

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.errors import InvalidInputError, NotFoundError
from agentur.knowledge.embedding import Embedder, EmbeddingUnavailable
from agentur.knowledge.run_records import RoundFacts, tool_result_dict
from agentur.storage.models.base import utc_now
from agentur.storage.models.knowledge import RoundMemory, WorkflowMemory

MAX_MEMORY_TEXT = 4_000
RECENT_ROWS = 500  # rows compared per semantic lookup
MAX_KEY = 200
MAX_VALUE = 20_000


def cosine(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def round_text(record: RoundFacts) -> str:
    parts = [record.decisions.strip()]
    for result in record.tool_results:
        status = "error" if result.is_error else "ok"
        parts.append(f"{result.tool_name} ({status}): {result.result_preview.strip()}")
    return "\n".join(p for p in parts if p)[:MAX_MEMORY_TEXT]


class RoundMemoryService:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def save_round(
        self, session: AsyncSession, record: RoundFacts, context: RequestContext
    ) -> RoundMemory:
        text = round_text(record)
        vector: list[float] | None = None
        model: str | None = None
        if text and self.embedder.configured:
            try:
                embedded = await self.embedder.embed(
                    [text], context, purpose="round_memory", workflow_id=record.workflow_id
                )
                vector, model = embedded.vectors[0], embedded.model
            except EmbeddingUnavailable:
                pass  # stored without a vector; recency still finds it
        row = (
            await session.execute(
                select(RoundMemory).where(
                    RoundMemory.run_id == record.run_id,
                    RoundMemory.round_index == record.round_index,
                    RoundMemory.mandate_id == context.mandate_id,
                )
            )
        ).scalar_one_or_none()
        if row is None:
            row = RoundMemory(
                mandate_id=context.mandate_id,
                user_id=context.user_id,
                workflow_id=record.workflow_id,
                run_id=record.run_id,
                round_index=record.round_index,
            )
            session.add(row)
        row.file_refs = list(record.file_refs)
        row.tool_results = [tool_result_dict(result) for result in record.tool_results]
        row.decisions = record.decisions
        row.text = text
        row.embedding, row.embedding_model = vector, model
        await session.flush()
        return row

    async def rounds(
        self,
        session: AsyncSession,
        context: RequestContext,
        *,
        workflow_id: str | None = None,
        other_workflows_of: str | None = None,
        limit: int = RECENT_ROWS,
    ) -> list[RoundMemory]:
        """Rounds of one workflow, or the caller's rounds in all workflows but one."""
        query = select(RoundMemory).where(RoundMemory.mandate_id == context.mandate_id)
        if workflow_id is not None:
            query = query.where(RoundMemory.workflow_id == workflow_id)
        if other_workflows_of is not None:
            query = query.where(
                RoundMemory.workflow_id != other_workflows_of,
                RoundMemory.user_id == context.user_id,
            )
        query = query.order_by(RoundMemory.created_at.desc(), RoundMemory.round_index.desc())
        return list((await session.execute(query.limit(limit))).scalars())

    @staticmethod
    def rank(
        rows: list[RoundMemory], vector: list[float] | None, model: str | None, minimum: float
    ) -> list[tuple[float, RoundMemory]]:
        if vector is None:
            return [(0.0, row) for row in rows]
        scored = [
            (cosine(vector, row.embedding), row)
            for row in rows
            if row.embedding and row.embedding_model == model
        ]
        return sorted((s for s in scored if s[0] >= minimum), key=lambda s: -s[0])


class WorkflowMemoryService:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def remember(
        self,
        session: AsyncSession,
        context: RequestContext,
        workflow_id: str,
        key: str,
        value: str,
        *,
        kind: str = "fact",
        embed: bool = False,
    ) -> WorkflowMemory:
        key = key.strip()
        if not key or len(key) > MAX_KEY:
            raise InvalidInputError(f"a memory key has 1 to {MAX_KEY} characters")
        if len(value) > MAX_VALUE:
            raise InvalidInputError(f"a memory value has at most {MAX_VALUE} characters")
        if kind not in ("fact", "entity"):
            raise InvalidInputError("kind is 'fact' or 'entity'")
        row = await self._row(session, context, workflow_id, key)
        if row is None:
            row = WorkflowMemory(mandate_id=context.mandate_id, workflow_id=workflow_id, key=key)
            session.add(row)
        row.value, row.kind = value, kind
        row.updated_at = utc_now()  # seen again: recent, even when unchanged (ranking, pruning)
        row.embedding = row.embedding_model = None
        if embed and self.embedder.configured:
            try:
                embedded = await self.embedder.embed(
                    [f"{key}: {value}"], context, purpose="workflow_memory", workflow_id=workflow_id
                )
                row.embedding, row.embedding_model = embedded.vectors[0], embedded.model
            except EmbeddingUnavailable:
                pass
        await session.flush()
        return row

    async def get(
        self, session: AsyncSession, context: RequestContext, workflow_id: str, key: str
    ) -> WorkflowMemory:
        row = await self._row(session, context, workflow_id, key)
        if row is None:
            raise NotFoundError(f"no memory {key!r} in this workflow")
        return row

    async def list(
        self, session: AsyncSession, context: RequestContext, workflow_id: str
    ) -> list[WorkflowMemory]:
        rows = await session.execute(
            select(WorkflowMemory)
            .where(
                WorkflowMemory.mandate_id == context.mandate_id,
                WorkflowMemory.workflow_id == workflow_id,
            )
            .order_by(WorkflowMemory.updated_at.desc(), WorkflowMemory.key)
        )
        return list(rows.scalars())

    async def prune(
        self, session: AsyncSession, context: RequestContext, workflow_id: str, keep: int
    ) -> int:
        """Delete all but the `keep` most recently seen entries of a workflow; how many went."""
        stale = (
            select(WorkflowMemory.id)
            .where(
                WorkflowMemory.mandate_id == context.mandate_id,
                WorkflowMemory.workflow_id == workflow_id,
            )
            .order_by(WorkflowMemory.updated_at.desc(), WorkflowMemory.key)
            .offset(keep)
        )
        ids = list((await session.execute(stale)).scalars())
        if ids:
            await session.execute(delete(WorkflowMemory).where(WorkflowMemory.id.in_(ids)))
        return len(ids)

    async def _row(
        self, session: AsyncSession, context: RequestContext, workflow_id: str, key: str
    ) -> WorkflowMemory | None:
        return (
            await session.execute(
                select(WorkflowMemory).where(
                    WorkflowMemory.mandate_id == context.mandate_id,
                    WorkflowMemory.workflow_id == workflow_id,
                    WorkflowMemory.key == key,
                )
            )
        ).scalar_one_or_none()

"""`build_agent_context`: one formatted block in six layers, each within its token budget.

1. known files (named in the request, or in this workflow's round memory), 2. scoped search
instance → personal → mandate → global, 3. semantic round memory, 4. workflow entities, 5. shared
mandate documents, 6. cross-workflow hints (only rounds with a successful tool call, closer to
this request than any of a set of unrelated requests — hint_threshold.py — each with its source
workflow and age, and only what its tools returned: the model's own words of that round are
left out, since a 1.5B model took another run's plan for its own request). Knowledge passages
name their file ids, so a model can pass the id where one is asked for. Everything is filtered
by the caller's tenant and visibility. The prompt is embedded once; when that fails the block is
empty (never an exception): the run goes on without it.

`build_layers` returns the six layers as data, in the spec's order; `render_layers` makes the one
block of text the agent's hook hands on. Where in the prompt the block goes is the agent's
choice, not this module's.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.embedding import EmbeddingUnavailable
from agentur.knowledge.hint_threshold import HintThreshold
from agentur.knowledge.memory import RoundMemoryService, WorkflowMemoryService
from agentur.knowledge.search import VECTOR, KnowledgeSearch
from agentur.knowledge.search_legs import SearchFilters
from agentur.storage.models import File
from agentur.storage.models.base import utc_now
from agentur.storage.models.knowledge import READABLE_STATUSES, FileContentIndex, RoundMemory
from agentur.workspace.scopes import Scope, visible_files

logger = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
# Title and share of the total budget per layer, in the spec's order.
LAYERS = (
    ("Known files", 0.10),
    ("Relevant documents", 0.40),
    ("Earlier rounds", 0.15),
    ("Workflow facts", 0.10),
    ("Shared mandate documents", 0.15),
    ("Hints from other workflows", 0.10),
)
MAX_FACTS = 20
# One hint's text at most (a round's successful results).
HINT_CHARS = 1_000
SCOPE_ORDER = (Scope.feature_instance, Scope.personal, Scope.mandate, Scope.global_)
HITS_PER_SCOPE = 4
MIN_ROUND_SIMILARITY = 0.3
# A file name as a request writes it: a word with an extension ("notes.txt", "Q3-report.pdf").
FILE_NAME = re.compile(r"(?<![\w./-])[\w][\w.-]{0,200}\.[A-Za-z0-9]{1,8}(?![\w-])")
MAX_NAMED_FILES = 10


@dataclass
class Layer:
    number: int  # 1 … 6, the layer's place
    title: str
    budget_chars: int
    lines: list[str]
    used: int = 0

    def add(self, line: str) -> bool:
        line = " ".join(line.split()) if "\n" not in line else line.strip()
        room = self.budget_chars - self.used
        if room <= 20:
            return False
        if len(line) > room:
            line = line[: room - 1] + "…"
        self.lines.append(line)
        self.used += len(line) + 1
        return True

    def render(self) -> str:
        return f"### {self.title}\n" + "\n".join(self.lines) if self.lines else ""


@dataclass(eq=False)
class AgentContextBuilder:
    search: KnowledgeSearch
    rounds: RoundMemoryService
    facts: WorkflowMemoryService
    budget_tokens: int
    # Hints come from other workflows: only rounds close to this request are worth the
    # tokens (and the risk of steering the model to another task's documents).
    hint_threshold: HintThreshold = field(init=False)

    def __post_init__(self) -> None:
        self.hint_threshold = HintThreshold(self.search.embedder)

    async def build(
        self,
        session: AsyncSession,
        prompt: str,
        context: RequestContext,
        *,
        workflow_id: str | None = None,
    ) -> str:
        return render_layers(
            await self.build_layers(session, prompt, context, workflow_id=workflow_id)
        )

    async def build_layers(
        self,
        session: AsyncSession,
        prompt: str,
        context: RequestContext,
        *,
        workflow_id: str | None = None,
    ) -> list[Layer]:
        """All six layers in the spec's order (empty ones included); [] without a prompt, a budget
        or an embedding of the prompt."""
        if not prompt.strip() or self.budget_tokens <= 0:
            return []
        try:
            embedded = await self.search.embedder.embed_query(
                prompt[:2_000], context, workflow_id=workflow_id
            )
        except EmbeddingUnavailable as error:
            logger.info("no RAG block: %s", error)
            return []
        vector, model = embedded.vectors[0], embedded.model
        total = self.budget_tokens * CHARS_PER_TOKEN
        layers = [
            Layer(number, title, int(total * share), [])
            for number, (title, share) in enumerate(LAYERS, start=1)
        ]
        rounds = (
            await self.rounds.rounds(session, context, workflow_id=workflow_id)
            if workflow_id
            else []
        )
        seen_files = await self._known_files(session, prompt, context, rounds, layers[0])
        await self._scoped_search(session, prompt, context, vector, workflow_id, layers[1])
        for score, row in self.rounds.rank(rounds, vector, model, MIN_ROUND_SIMILARITY)[:5]:
            layers[2].add(f"- round {row.round_index} ({score:.2f}): {row.text}")
        if workflow_id:
            for fact in (await self.facts.list(session, context, workflow_id))[:MAX_FACTS]:
                layers[3].add(f"- {fact.kind} {fact.key}: {fact.value}")
        await self._shared_documents(session, context, seen_files, layers[4])
        if workflow_id:
            others = await self.rounds.rounds(session, context, other_workflows_of=workflow_id)
            others = [row for row in others if _succeeded(row)]
            minimum = await self._hint_minimum(others, vector, model, context)
            now = utc_now()
            for score, row in self.rounds.rank(others, vector, model, minimum)[:3]:
                layers[5].add(
                    f"- from workflow {row.workflow_id}, {_age(now, row.created_at)} "
                    f"({score:.2f}): {_what_happened(row)}"
                )
        return layers

    async def _hint_minimum(
        self, others: list, vector: list[float], model: str, context: RequestContext
    ) -> float:
        if not others:
            return math.inf
        try:
            return await self.hint_threshold.minimum(vector, model, context)
        except EmbeddingUnavailable as error:
            logger.info("no hints from other workflows: %s", error)
            return math.inf

    async def _known_files(
        self,
        session: AsyncSession,
        prompt: str,
        context: RequestContext,
        rounds: list,
        layer: Layer,
    ) -> set[str]:
        """Files the request names ("copy notes.txt …": a small model otherwise takes the id of
        whichever passage comes first) and files this workflow's rounds used, with their ids."""
        refs = list(dict.fromkeys(ref for row in rounds for ref in (row.file_refs or [])))
        names = list(dict.fromkeys(FILE_NAME.findall(prompt[:2_000])))[:MAX_NAMED_FILES]
        if not refs and not names:
            return set()
        wanted = File.id.in_(refs[:50]) | File.name.in_(names) if names else File.id.in_(refs[:50])
        files = await session.execute(
            select(File.id, File.name)
            .where(wanted, visible_files(context))
            .order_by(File.name, File.id)
            .limit(50 + MAX_NAMED_FILES)
        )
        seen = set()
        for file_id, name in files:
            seen.add(file_id)
            layer.add(f"- {name} (file_id {file_id})")
        return seen

    async def _scoped_search(
        self,
        session: AsyncSession,
        prompt: str,
        context: RequestContext,
        vector: list[float],
        workflow_id: str | None,
        layer: Layer,
    ) -> None:
        for scope in SCOPE_ORDER:
            if scope is Scope.feature_instance and not context.feature_instance_id:
                continue
            result = await self.search.search(
                session,
                prompt[:2_000],
                context,
                limit=HITS_PER_SCOPE,
                filters=SearchFilters(scopes=[scope.value]),
                query_vector=vector,
                legs=(VECTOR,),
            )
            for hit in result.hits:
                where = " > ".join(hit.heading_path)
                page = f", p. {hit.page}" if hit.page else ""
                header = (
                    f"- [{hit.file_name} (file_id {hit.file_id}){page}"
                    f"{' — ' + where if where else ''}] "
                )
                if not layer.add(header + hit.text):
                    return

    async def _shared_documents(
        self, session: AsyncSession, context: RequestContext, seen: set[str], layer: Layer
    ) -> None:
        rows = await session.execute(
            select(File.id, File.name, FileContentIndex.summary)
            .join(FileContentIndex, FileContentIndex.file_id == File.id)
            .where(
                File.mandate_id == context.mandate_id,
                File.scope == Scope.mandate.value,
                FileContentIndex.status.in_(READABLE_STATUSES),
            )
            .order_by(FileContentIndex.indexed_at.desc())
            .limit(10)
        )
        for file_id, name, summary in rows:
            if file_id in seen:
                continue
            headings = ", ".join((summary or {}).get("headings", [])[:5])
            layer.add(f"- {name}" + (f": {headings}" if headings else ""))


def _succeeded(row: RoundMemory) -> bool:
    """A round worth a hint: one of its tool calls succeeded (failed calls and empty rounds
    spread their errors into unrelated runs)."""
    return any(not result.get("is_error") for result in row.tool_results or [])


def _what_happened(row: RoundMemory) -> str:
    """A round's successful tool calls with their results, without the model's words."""
    done = [
        f"{result.get('tool_name')} (ok): {str(result.get('result_preview') or '').strip()}"
        for result in row.tool_results or []
        if not result.get("is_error")
    ]
    return "\n".join(done)[:HINT_CHARS]


def _age(now: datetime, then: datetime) -> str:
    minutes = max(0, int((now - then).total_seconds() // 60))
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} days ago"


def render_layers(layers: list[Layer]) -> str:
    body = "\n\n".join(part for part in (layer.render() for layer in layers) if part)
    return f"## Knowledge context\n\n{body}" if body else ""

"""How close a round of another workflow must be to a request to be shown as a hint.

A fixed cosine cut-off does not carry from one embedding model to the next: with
multilingual-e5-small any two requests score ~0.75–0.85 ("Who leads project Alpenblick per
notes.txt?" and "What is the phone number of our Geneva branch, per my files?": 0.77), while
a request and a rephrasing of it score ~0.9; with other models unrelated texts score near 0.
So the bar is set per request: a hint must be closer to the request than every one of a set
of unrelated requests (`data/unrelated_requests.txt`), embedded once per model and process,
by a margin — and never below a floor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentur.context import RequestContext
from agentur.knowledge.embedding import Embedder
from agentur.knowledge.memory import cosine

REFERENCE_FILE = Path(__file__).with_name("data") / "unrelated_requests.txt"
FLOOR = 0.6  # whatever the references say, below this nothing is a hint
MARGIN = 0.02  # how much closer than the closest unrelated request a hint must be


def reference_requests() -> list[str]:
    lines = REFERENCE_FILE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


class HintThreshold:
    """The per-request minimum similarity of a hint; reference vectors cached by model."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._references: dict[str, list[list[float]]] = {}
        self._lock = asyncio.Lock()

    async def minimum(self, vector: list[float], model: str, context: RequestContext) -> float:
        references = await self._vectors(model, context)
        closest = max((cosine(vector, reference) for reference in references), default=0.0)
        return max(FLOOR, closest + MARGIN)

    async def _vectors(self, model: str, context: RequestContext) -> list[list[float]]:
        async with self._lock:  # one embedding of the references per model, however many ask
            if model not in self._references:
                embedded = await self.embedder.embed(
                    reference_requests(), context, purpose="round_memory"
                )
                # Embedded as rounds are; vectors of another model than the request's are no
                # reference for it (the embedder may have fallen back).
                self._references[model] = embedded.vectors if embedded.model == model else []
            return self._references[model]

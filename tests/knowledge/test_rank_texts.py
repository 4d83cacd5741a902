"""The in-memory ranking the assistant uses for unindexed files is the store's lexical engine:
same terms (stems, folded accents, compound prefixes) and the same order as the indexed leg."""

from __future__ import annotations

import pytest

from agentur.knowledge.rank_texts import rank_texts
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from tests.knowledge.conftest import upload

TEXTS = {
    "lift.md": "Die Aufzugsanlage im Gebäude wird jährlich gewartet.",
    "delivery.md": "Lieferungen nach Deutschland dauern fünf bis acht Werktage.",
    "returns.md": "Rücksendungen sind innerhalb von dreissig Tagen kostenlos.",
    "zurich.md": "Unser Büro in Zürich ist montags geschlossen. Zürich Büro Zürich.",
    "office.md": "Das Büro in Bern ist montags bis freitags offen.",
}


def test_stems_accents_and_compound_heads_match() -> None:
    texts = list(TEXTS.values())
    assert [s > 0 for s in rank_texts("Aufzug", texts, "de")] == [1, 0, 0, 0, 0]
    assert [s > 0 for s in rank_texts("Lieferung", texts, "de")] == [0, 1, 0, 0, 0]
    assert [s > 0 for s in rank_texts("zurich", texts, "de")] == [0, 0, 0, 1, 0]
    assert rank_texts("Quantenphysik", texts, "de") == [0.0] * 5
    assert rank_texts("", texts, "de") == [0.0] * 5


@pytest.mark.parametrize(
    "query", ["Büro Bern montags", "Wann ist das Büro in Zürich offen?", "Aufzug Wartung jährlich"]
)
async def test_same_order_as_the_indexed_lexical_leg(
    runtime: Runtime, store: KnowledgeStore, tenants, query: str
) -> None:
    alice = await tenants.member()
    ids = {}
    for name, body in TEXTS.items():
        ids[(await upload(runtime, alice.context, name, body)).id] = body
    await store.worker.run_until_idle()
    async with runtime.database.session() as session:
        result = await store.search.search(session, query, alice.context, legs=("lexical",))
    indexed = [ids[hit.file_id] for hit in result.hits]
    scores = rank_texts(query, list(ids.values()), "de")
    in_memory = [
        t for s, t in sorted(zip(scores, ids.values(), strict=True), key=lambda p: -p[0]) if s > 0
    ]
    assert in_memory == indexed

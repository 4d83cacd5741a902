"""Lexical ranking on both backends: IDF-aware BM25, the term plan's budget, the second pass
when filters eat the rare terms' rows, and (PostgreSQL) term statistics that follow every write
and delete."""

from __future__ import annotations

import pytest
from sqlalchemy import event, text

from agentur.knowledge.lexical_plan import make_plan
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from agentur.workspace.scopes import Scope
from tests.knowledge.conftest import knowledge_settings, upload


def test_plan_keeps_rare_terms_within_the_budget() -> None:
    plan = make_plan(
        [("zebra", False), ("haus", True), ("common", False)],
        {"zebra": 2, "haus": 40, "common": 90},
        {"haus": [("hauser", 30), ("hausboot", 50), ("hausbau", 1)]},
        budget=100,
    )
    assert [g.term for g in plan.groups] == ["zebra", "haus", "common"]
    # Expansion stops before the group exceeds the budget: 40 + 30 fits, + 50 would not.
    assert plan.groups[1].lexemes == {"haus": 40, "hauser": 30}
    assert not plan.groups[1].complete_prefix  # cut: FTS5 must list the words, not `haus*`
    whole = make_plan([("haus", True)], {"haus": 4}, {"haus": [("hauser", 3)]}, budget=100)
    assert whole.groups[0].complete_prefix and whole.groups[0].lexemes == {"haus": 4, "hauser": 3}
    assert plan.selected == 2 and plan.narrowed  # 2 + 70 fit, + 90 would not
    assert plan.lexemes() == ["haus", "hauser", "zebra"]
    assert plan.lexemes(all_groups=True) == ["common", "haus", "hauser", "zebra"]
    assert make_plan([("nowhere", True)], {}, {}, budget=100).groups == []


async def test_rare_terms_outrank_repeated_common_ones(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    filler = [
        await upload(runtime, alice.context, f"filler-{i}.md", f"# Note {i}\n\nweather report {i}.")
        for i in range(6)
    ]
    loud = await upload(runtime, alice.context, "loud.md", "# Weather\n\n" + "weather report " * 20)
    rare = await upload(runtime, alice.context, "rare.md", "# Okapi\n\nThe okapi weather.")
    await store.worker.run_until_idle()
    async with runtime.database.session() as session:
        result = await store.search.search(
            session, "okapi weather report", alice.context, legs=("lexical",)
        )
    ids = [h.file_id for h in result.hits]
    assert ids[0] == rare.id  # the only file with the rare word wins over tf of common ones
    assert loud.id in ids and {f.id for f in filler} <= set(ids)


async def test_second_pass_when_filters_hide_the_rare_rows(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    use_knowledge_store(
        runtime, KnowledgeStore(runtime, knowledge_settings(knowledge_lexical_budget=100))
    )
    narrow = runtime.__dict__["_knowledge_store"]
    alice = await tenants.member("acme")
    colleague = await tenants.member("acme")
    # 120 visible chunks with a common word; the rare word only in a colleague's private file.
    body = "\n\n".join(f"## Part {i}\n\nmeadow {i}" for i in range(120))
    mine = await upload(runtime, alice.context, "meadows.md", "# Meadows\n\n" + body)
    await upload(runtime, colleague.context, "secret.md", "# Secret\n\nmeadow quokka")
    outcomes = await narrow.worker.run_until_idle()
    assert sum(o.chunks for o in outcomes if o.file_id == mine.id) > 100  # over the budget
    async with runtime.database.session() as session:
        result = await narrow.search.search(
            session, "quokka meadow", alice.context, legs=("lexical",), limit=5
        )
    assert len(result.hits) == 5 and {h.file_id for h in result.hits} == {mine.id}


async def test_postgres_term_stats_follow_writes_and_deletes(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    if runtime.database.is_sqlite:
        return  # SQLite reads frequencies from the FTS5 index itself (fts5vocab)
    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    first = await upload(runtime, alice.context, "a.md", "# A\n\nlynx river")
    await upload(runtime, alice.context, "b.md", "# B\n\nlynx forest", scope=Scope.mandate)
    await upload(runtime, mallory.context, "c.md", "# C\n\nlynx")
    await store.worker.run_until_idle()

    async def stats() -> dict[tuple[str, str], tuple[int, int]]:
        async with runtime.database.session() as session:
            rows = await session.execute(
                text(
                    "SELECT part, term, df, total FROM knowledge_term_stats "
                    "WHERE term IN ('lynx', 'river', '') AND df > 0"
                )
            )
            return {(p, t): (df, total) for p, t, df, total in rows}

    acme, other = alice.context.mandate_id, mallory.context.mandate_id
    found = await stats()
    assert found[(acme, "lynx")][0] == 2 and found[(other, "lynx")][0] == 1
    assert found[(acme, "river")][0] == 1 and found[(acme, "")][0] == 2
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        await files.delete(first.id)  # chunks go by cascade; the trigger still counts it
        await files.commit()
    found = await stats()
    assert found[(acme, "lynx")][0] == 1 and (acme, "river") not in found
    assert found[(acme, "")][0] == 1 and found[(other, "lynx")][0] == 1


@pytest.mark.parametrize("checked", [None, 1])
async def test_best_matches_hidden_from_the_caller_do_not_crowd_out_theirs(
    runtime: Runtime, store: KnowledgeStore, tenants, checked: int | None
) -> None:
    """A colleague's personal file holds 150 chunks that match better than Alice's one chunk:
    more than the matches ranked before the visibility filter (SQLite: FTS5's best 2 × limit;
    PostgreSQL: the cheap score's best `checked`, with 1 far fewer than the crowd, so only
    checking every candidate again finds hers). Alice still finds hers, and only hers."""
    if checked is not None:
        narrow = knowledge_settings(knowledge_lexical_checked=checked, knowledge_lexical_rescored=1)
        use_knowledge_store(runtime, KnowledgeStore(runtime, narrow))
        store = runtime.__dict__["_knowledge_store"]
    alice = await tenants.member("acme")
    colleague = await tenants.member("acme")
    body = "\n\n".join(f"## Part {i}\n\nquokka quokka quokka {i}" for i in range(150))
    await upload(runtime, colleague.context, "crowd.md", "# Crowd\n\n" + body)
    mine = await upload(runtime, alice.context, "mine.md", "# Mine\n\nOne quokka among many words.")
    outcomes = await store.worker.run_until_idle()
    assert sum(o.chunks for o in outcomes) > 150
    async with runtime.database.session() as session:
        result = await store.search.search(
            session, "quokka", alice.context, legs=("lexical",), limit=5
        )
    assert [h.file_id for h in result.hits] == [mine.id]


async def test_postgres_keeps_the_bm25_length_beside_the_terms(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    if runtime.database.is_sqlite:
        return  # FTS5 keeps document lengths itself
    alice = await tenants.member("acme")
    await upload(runtime, alice.context, "a.md", "# A\n\nlynx river forest lynx")
    await upload(runtime, alice.context, "b.md", "# B\n\n" + "meadow " * 30)
    await store.worker.run_until_idle()
    async with runtime.database.session() as session:
        rows = (
            await session.execute(text("SELECT tsv_length, length(tsv) FROM knowledge_chunks"))
        ).all()
    assert len(rows) >= 2 and all(stored == actual > 0 for stored, actual in rows)


async def test_postgres_statements_do_not_depend_on_the_query(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    """The term statistics and BM25 statements are fixed text (the query comes as arrays): one
    compile and one prepared statement per connection, whatever the query's words."""
    if runtime.database.is_sqlite:
        return  # SQLite's statements follow the query's shape (prepared in microseconds)
    alice = await tenants.member("acme")
    first = await upload(runtime, alice.context, "a.md", "# A\n\nlynx river forest")
    second = await upload(runtime, alice.context, "b.md", "# B\n\nmeadows and rivers of otters")
    await store.worker.run_until_idle()
    statements: dict[str, list[str]] = {}
    query = ""

    def record(connection, cursor, statement: str, *args) -> None:  # noqa: ANN001
        statements.setdefault(query, []).append(statement)

    engine = runtime.database.engine.sync_engine
    found = {}
    event.listen(engine, "before_cursor_execute", record)
    try:
        for query in ("lynx", "meadows otters"):
            async with runtime.database.session() as session:
                result = await store.search.search(session, query, alice.context, legs=("lexical",))
            found[query] = {h.file_id for h in result.hits}
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert found == {"lynx": {first.id}, "meadows otters": {second.id}}
    # Term statistics, then BM25 (then the hits' rows, whose IN list follows their number).
    one, three = statements["lynx"][:2], statements["meadows otters"][:2]
    assert "knowledge_term_stats" in one[0] and "WITH scanned" in one[1]
    assert one == three


async def test_a_chunk_holding_both_words_wins_when_each_word_is_over_the_budget(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    """Each query word alone has more chunks than a pass may read; the one chunk holding both
    was written last. PostgreSQL finds it by intersecting the words' postings in the GIN index
    (reading the first `budget` chunks of the rarest word would miss it); SQLite's FTS5 ranks
    every match."""
    use_knowledge_store(
        runtime, KnowledgeStore(runtime, knowledge_settings(knowledge_lexical_budget=100))
    )
    narrow = runtime.__dict__["_knowledge_store"]
    alice = await tenants.member("acme")
    for word in ("walnut", "chestnut"):
        body = "\n\n".join(f"## Part {i}\n\n{word} {i}" for i in range(120))
        await upload(runtime, alice.context, f"{word}.md", "# Trees\n\n" + body)
    both = await upload(runtime, alice.context, "grove.md", "# Grove\n\nwalnut and chestnut")
    outcomes = await narrow.worker.run_until_idle()
    assert sum(o.chunks for o in outcomes) > 240  # each word alone over the budget
    async with runtime.database.session() as session:
        result = await narrow.search.search(
            session, "walnut chestnut", alice.context, legs=("lexical",), limit=5
        )
    assert len(result.hits) == 5 and result.hits[0].file_id == both.id

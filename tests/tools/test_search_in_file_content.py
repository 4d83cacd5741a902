"""search_in_file_content: lines with the whole query, else lines with some of its words."""

from __future__ import annotations

import json

from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from agentur.workspace.line_search import query_words, word_lines
from tests.agent.support import call
from tests.conftest import Tenants
from tests.tools.test_resolve_references import _run

NOTES = "Project Alpenblick kick-off\nBudget: CHF 48,000\nOwner: Mara Keller\n"


def test_word_lines_hold_the_querys_longer_words() -> None:
    words = query_words("Projekt Alpenblick Leitung")
    assert words == ("projekt", "alpenblick", "leitung")
    assert [(m.number, m.words) for m in word_lines(NOTES, words)] == [(1, ("alpenblick",))]


async def test_a_query_no_line_holds_finds_the_lines_with_its_words(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        notes = await files.write_text("notes.txt", NOTES)
        await files.commit()
    out = await _run(
        runtime,
        alice,
        # Qwen2.5-Coder-1.5B asked in German about English notes
        call("search_in_file_content", "german", query="Projekt Alpenblick"),
        call("search_in_file_content", "exact", query="Mara Keller"),
        call("search_in_file_content", "none", query="Telefonnummer Genf"),
    )
    german = json.loads(out["german"]["content"])
    assert [(m["file_id"], m["line"]) for m in german["matches"]] == [(notes.id, 1)]
    assert german["matches"][0]["words"] == ["alpenblick"] and "whole query" in german["note"]
    exact = json.loads(out["exact"]["content"])
    assert [m["line"] for m in exact["matches"]] == [3] and "note" not in exact
    assert json.loads(out["none"]["content"])["matches"] == []

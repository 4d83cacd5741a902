"""The loop detector: a looping tail is found and cut after its first piece; real text — the
project's own README, docs and largest modules — never is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentur.ai.repeated_output import RepeatedOutput

ROOT = Path(__file__).resolve().parents[2]
WINDOW = 1_024


def fed(text: str, window: int = WINDOW, piece: int = 5) -> RepeatedOutput:
    """The detector after `text` arrived in pieces of `piece` characters; stops at a loop."""
    watched = RepeatedOutput(window)
    for start in range(0, len(text), piece):
        if watched.feed(text[start : start + piece]):
            break
    return watched


def test_tool_calls_written_as_text_in_a_loop_are_cut_after_the_first() -> None:
    # As Qwen2.5-Coder-0.5B wrote it: a few calls, then one call line after line.
    intro = "".join(
        json.dumps({"name": name, "arguments": {"file_id": "notes.txt"}}) + "\n"
        for name in ("search_knowledge", "read_file", "list_connections")
    )
    line = json.dumps(
        {"name": "list_files", "arguments": {"folder_id": None, "search": "Alpenblick"}}
    )
    watched = fed(intro + (line + "\n") * 200)
    assert watched.looping
    assert watched.kept() == intro + line + "\n"
    # stopped early: a few windows' worth, not the 200 lines
    assert len(watched.text) < len(intro) + 2 * WINDOW


def test_a_cycle_of_calls_that_differ_comes_round_again_and_is_cut_before_it() -> None:
    # As Qwen2.5-Coder-0.5B wrote it for 4,096 tokens: read_file with one made-up id after the
    # other, then the same ids again, with a variation now and then.
    def call(file_id: str) -> str:
        arguments = {"file_id": f"{file_id} (file_id e4e9fa1b)", "offset": 0, "limit": 10**6}
        return json.dumps({"name": "read_file", "arguments": arguments}) + "\n"

    names = ["hours.md", "notes.txt", "Owner: Mara Keller", "Jira", "mcp", "web", "clickup"]
    first = "".join(call(name) for name in names) + call("hours.md — Opening hours")
    again = "".join(call(name) for name in names)
    watched = fed(first + again * 10)
    assert watched.looping
    assert watched.kept() == first
    assert len(watched.text) < len(first) + len(again) + WINDOW


def test_lines_repeated_between_new_ones_are_no_loop() -> None:
    # A table's rows share their frame but not their values: every row is new.
    rows = "".join(f"| {n:>3} | Lenzburg | {n * 7 % 13:>2} h |\n" for n in range(300))
    assert not fed(rows).looping
    # The same line now and then, between new ones, never fills the window.
    text = "".join(f"Schritt {n}: prüfen.\n---- weiter ----\n" for n in range(300))
    assert not fed(text).looping


@pytest.mark.parametrize(
    "loop",
    ["and again, ", " ", "\n", "Ich kann Ihnen dabei helfen. ", "| a | b |\n" * 3 + "| c |\n"],
)
def test_loops_of_any_length_up_to_a_third_of_the_window(loop: str) -> None:
    answer = "Das Büro ist samstags von 9 bis 12 Uhr offen. "
    watched = fed(answer + loop * (3 * WINDOW // len(loop) + 3))
    assert watched.looping
    assert watched.kept().startswith(answer)
    assert watched.kept().endswith((" ", "\n"))  # cut after a word or line, not inside
    assert len(watched.kept()) <= len(answer) + 2 * len(loop)


def test_a_piece_repeated_fewer_than_three_times_in_the_window_is_no_loop() -> None:
    paragraph = "".join(chr(ord("a") + (i * 7) % 26) for i in range(WINDOW // 2))
    assert not fed(paragraph * 2 + "end").looping
    assert not fed(paragraph * 3).looping  # longer than a third of the window


def test_window_zero_never_stops() -> None:
    watched = fed("ha" * 10_000, window=0)
    assert not watched.looping
    assert watched.kept() == "ha" * 10_000


def _real_texts() -> list[Path]:
    modules = sorted(ROOT.joinpath("agentur").rglob("*.py"), key=lambda p: p.stat().st_size)
    docs = [ROOT / "README.md", *sorted(ROOT.joinpath("docs").rglob("*.md"))]
    return [path for path in docs if path.is_file()] + modules[-12:]


@pytest.mark.parametrize("path", _real_texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_real_text_is_never_taken_for_a_loop(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text) > WINDOW
    watched = fed(text, piece=4)
    assert not watched.looping, watched.text[-200:]
    assert watched.kept() == text

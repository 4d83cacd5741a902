"""Recovering tool calls written as text, in the formats small models use."""

from __future__ import annotations

import pytest

from agentur.ai.text_tool_calls import CallTextGuard, find_text_tool_calls

OFFERED = {"list_files", "read_file", "read_source_window"}
READ = ("read_file", {"path": "a.txt"})


@pytest.mark.parametrize(
    ("text", "calls", "remaining"),
    [
        (
            'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n'
            "</tool_call>",
            [READ],
            "Let me look.",
        ),
        ('<tools>{"name": "list_files", "arguments": {}}</tools>', [("list_files", {})], ""),
        (
            '<tools>[{"name": "list_files", "arguments": {}}, '
            '{"name": "read_file", "arguments": {"path": "a.txt"}}]</tools>',
            [("list_files", {}), READ],
            "",
        ),
        ('<function=read_file>{"path": "a.txt"}</function>', [READ], ""),
        ('<function name="read_file">{"path": "a.txt"}</function>', [READ], ""),
        ("<function name=list_files/>", [("list_files", {})], ""),
        ('<function name="read_file" arguments=\'{"path": "a.txt"}\'/>', [READ], ""),
        (
            "<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n"
            "</function>\n</tool_call>",
            [READ],
            "",
        ),
        ('```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```', [READ], ""),
        ('{"name": "read_file", "parameters": {"path": "a.txt"}}', [READ], ""),
        (
            '{{"name":"read_source_window","arguments":{{"source_id":"d1","offset":0}}}}}}',
            [("read_source_window", {"source_id": "d1", "offset": 0})],
            "",
        ),
        ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.txt"}}]', [READ], ""),
        (
            '{"type": "function", "function": {"name": "read_file", '
            '"arguments": "{\\"path\\": \\"a.txt\\"}"}}',
            [READ],
            "",
        ),
        (
            'Sure. {"name": "list_files", "arguments": {}} Done.',
            [("list_files", {})],
            "Sure.  Done.",
        ),
        # a plan with a call, then the same call again in its summary: one call (1.5B model)
        (
            'Step 1:\n```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```\n'
            'Calls:\n```json\n[{"name": "read_file", "arguments": {"path": "a.txt"}}, '
            '{"name": "list_files", "arguments": {}}]\n```',
            [READ, ("list_files", {})],
            "Step 1:\n\nCalls:",
        ),
    ],
)
def test_formats_are_recovered(text: str, calls: list, remaining: str) -> None:
    found = find_text_tool_calls(text, OFFERED)
    assert [(c.name, c.arguments) for c in found.calls] == calls
    assert found.remaining == remaining and found.looks_like_call
    assert len({c.id for c in found.calls}) == len(calls)


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.t',  # cut off
        "<tool_call>I will now list the files</tool_call>",
        "<function=read_file>not json</function>",
    ],
)
def test_broken_calls_are_not_recovered_but_still_look_like_calls(text: str) -> None:
    found = find_text_tool_calls(text, OFFERED)
    assert found.calls == () and found.looks_like_call


@pytest.mark.parametrize(
    "text",
    [
        "Opening hours on Saturday are 9:00 to 16:00 [1].",
        'The record: {"name": "Alice", "age": 31}',
        '```json\n{"name": "Alice"}\n```',
        "Use <b>bold</b> and {placeholders} freely.",
    ],
)
def test_answers_are_not_calls(text: str) -> None:
    found = find_text_tool_calls(text, OFFERED)
    assert found.calls == () and not found.looks_like_call and found.remaining == text.strip()


@pytest.mark.parametrize(
    ("pieces", "shown", "held"),
    [
        (["Open 9 ", "to 16 [1", "] and <b>x</b>"], "Open 9 to 16 [1] and <b>x</b>", ""),
        (["Sure. <to", 'ol_call>{"name"', ": 1}"], "Sure. ", '<tool_call>{"name": 1}'),
        (["{", '"na', 'me": "x"}'], "", '{"name": "x"}'),
        (["{", '"answer": 1}'], '{"answer": 1}', ""),
        (["a ``", "`json\n{}\n```"], "a ", "```json\n{}\n```"),
    ],
)
def test_the_stream_guard_holds_back_what_may_be_a_call(
    pieces: list[str], shown: str, held: str
) -> None:
    guard = CallTextGuard()
    assert "".join(guard.feed(piece) for piece in pieces) == shown
    assert guard.held == held


def test_broken_json_naming_an_offered_tool_is_repaired_or_still_a_call() -> None:
    """Unescaped quotes copied from a document broke the JSON of a fenced call: it is repaired
    (json-repair); what cannot become a call still counts as one, so it is never an answer."""
    fenced = (
        "Writing it now.\n```json\n"
        '{"name": "write_file", "arguments": {"name": "a.txt", "content": "He said "hi" today"}}'
        "\n```"
    )
    found = find_text_tool_calls(fenced, ["write_file"])
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("write_file", {"name": "a.txt", "content": 'He said "hi" today'})
    ]
    assert found.remaining == "Writing it now."
    cut = find_text_tool_calls('{"name": "write_file", "arguments": ["x"', ["write_file"])
    assert cut.looks_like_call and cut.calls == ()
    # JSON that names no offered tool stays part of an answer.
    assert not find_text_tool_calls('Totals: {"a": 1, "b": [2', ["write_file"]).looks_like_call


def test_empty_call_tags_are_no_call_and_no_text() -> None:
    # Qwen2.5-Coder-1.5B's whole reply to a German question, twice
    found = find_text_tool_calls("<tools></tools>", OFFERED)
    assert not found.looks_like_call and found.calls == () and found.remaining == ""
    found = find_text_tool_calls("Mara Keller leitet es. <tool_call> </tool_call>", OFFERED)
    assert not found.looks_like_call and found.remaining == "Mara Keller leitet es."


def test_calls_on_consecutive_lines_are_all_recovered() -> None:
    # Qwen2.5-Coder-1.5B: two calls in doubled braces, one per line; the copy was lost
    text = (
        '{{"name": "list_files", "arguments": {"search": "notes"}}}\n'
        '{{"name": "read_file", "arguments": {"path": "a.txt"}}}'
    )
    found = find_text_tool_calls(text, OFFERED)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("list_files", {"search": "notes"}),
        READ,
    ]

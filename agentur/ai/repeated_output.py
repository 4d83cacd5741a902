"""A model caught in a loop: generated text that only repeats what it already wrote.

Small local models fall into loops — the same tool call written as text line after line, a
cycle of calls that differ in one argument, the same sentence again — and then write until
the output limit, minutes per round on a CPU. A stream is watched as it arrives; it is looping
once its last `window` characters are
- one piece repeated at least `MIN_REPEATS` times (any piece: a word, a sentence, a line), or
- whole lines that all occurred earlier in the reply, at least `MIN_REPEATS` of them with
  words in them (a cycle of lines, however long, that comes round again).
The gateway then stops reading (the connection is closed, so the server stops generating) and
keeps the text before the repetition.
"""

from __future__ import annotations

# A piece must fill the window at least this often (so a piece is at most window / 3 long),
# and a run of repeated lines must hold at least this many lines with words in them.
MIN_REPEATS = 3
# Lines shorter than this (stripped) — a brace, a blank — are neither new nor evidence of a loop.
MIN_LINE_CHARS = 8
# The tail is compared after at least this many new characters (a check costs a few µs per
# candidate length, so not after every token).
CHECK_EVERY_CHARS = 64


class RepeatedOutput:
    """Watches one stream of generated text (the reply's text, or one tool call's arguments)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self._parts: list[str] = []
        self._length = 0
        self._tail = ""
        self._unchecked = 0
        self._lines = _RepeatedLines()
        self.cut: int | None = None  # where the kept text ends, once a loop is found

    @property
    def looping(self) -> bool:
        return self.cut is not None

    def feed(self, piece: str) -> bool:
        """Adds `piece`; True once the text has become a loop."""
        self._parts.append(piece)
        self._length += len(piece)
        if self.cut is not None or self.window <= 0:
            return self.looping
        if (start := self._lines.feed(piece, self._length, self.window)) is not None:
            self.cut = start
            return True
        self._tail = (self._tail + piece)[-self.window :]
        self._unchecked += len(piece)
        if len(self._tail) < self.window or self._unchecked < CHECK_EVERY_CHARS:
            return False
        self._unchecked = 0
        if (period := _period(self._tail)) is not None:
            self.cut = _first_piece_end(self.text, self.window, period)
        return self.looping

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def kept(self) -> str:
        """The text before the repetition (all of it while no loop was found)."""
        text = self.text
        return text if self.cut is None else text[: self.cut]


class _RepeatedLines:
    """The run of complete lines at the end of the text that all occurred before."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.partial: list[str] = []  # the unfinished last line, in pieces (one long line
        # of tool arguments must not be copied again with every piece)
        self.run_start = 0  # offset of the run's first line
        self.run_lines = 0  # lines with words in the run

    def feed(self, piece: str, length: int, window: int) -> int | None:
        """The offset where a loop of lines began, once the run fills `window`."""
        if "\n" not in piece:
            self.partial.append(piece)
            return None
        *complete, rest = ("".join(self.partial) + piece).split("\n")
        self.partial = [rest]
        line_end = length - len(rest)  # offset after the last complete line
        for line in reversed(complete):
            line_end -= len(line) + 1
        for line in complete:
            line_end += len(line) + 1
            words = line.strip()
            if len(words) < MIN_LINE_CHARS:
                continue
            if words in self.seen:
                self.run_lines += 1
            else:
                self.seen.add(words)
                self.run_start, self.run_lines = line_end, 0
        run_chars = length - len(rest) - self.run_start
        if self.run_lines >= MIN_REPEATS and run_chars >= window:
            return self.run_start
        return None


def _period(tail: str) -> int | None:
    """The shortest p such that `tail` repeats itself every p characters, at least
    `MIN_REPEATS` times over; None when it does not."""
    last = len(tail) - 1
    for period in range(1, len(tail) // MIN_REPEATS + 1):
        # a cheap look at one character first; the full comparison runs in C
        if tail[last] == tail[last - period] and tail[period:] == tail[:-period]:
            return period
    return None


def _first_piece_end(text: str, window: int, period: int) -> int:
    """Where the piece's first occurrence ends. Where a loop starts is ambiguous by a rotation
    of the piece; the cut goes after a line break, else a sentence's end, else a word, within
    the second occurrence."""
    start = len(text) - window
    while start > 0 and text[start - 1] == text[start - 1 + period]:
        start -= 1
    cuts = range(start + period, start + 2 * period)
    for ends_piece in (_line_end, _sentence_end, _word_end):
        for cut in cuts:
            if ends_piece(text, cut):
                return cut
    return start + period


def _line_end(text: str, cut: int) -> bool:
    return text[cut - 1] == "\n"


def _sentence_end(text: str, cut: int) -> bool:
    return text[cut - 1].isspace() and text[cut - 2] in ".!?"


def _word_end(text: str, cut: int) -> bool:
    return text[cut - 1].isspace()

"""A model caught in a loop: generated text whose tail is one piece repeated over and over.

Small local models fall into loops — the same tool call written as text line after line, the
same sentence again — and then write until the output limit, minutes per round on a CPU. A
stream is watched as it arrives; once its last `window` characters are one piece repeated at
least `MIN_REPEATS` times, the gateway stops reading (the connection is closed, so the server
stops generating) and keeps the text up to the end of the piece's first occurrence.
"""

from __future__ import annotations

# A piece must fill the window at least this often; so a piece is at most window / 3 long.
MIN_REPEATS = 3
# The tail is compared after at least this many new characters (a check costs a few µs per
# candidate length, so not after every token).
CHECK_EVERY_CHARS = 64


class RepeatedOutput:
    """Watches one stream of generated text (the reply's text, or one tool call's arguments)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self._parts: list[str] = []
        self._tail = ""
        self._unchecked = 0
        self.period: int | None = None  # the repeated piece's length, once found

    def feed(self, piece: str) -> bool:
        """Adds `piece`; True once the text has become a loop."""
        self._parts.append(piece)
        if self.period is not None or self.window <= 0:
            return self.period is not None
        self._tail = (self._tail + piece)[-self.window :]
        self._unchecked += len(piece)
        if len(self._tail) < self.window or self._unchecked < CHECK_EVERY_CHARS:
            return False
        self._unchecked = 0
        self.period = _period(self._tail)
        return self.period is not None

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def kept(self) -> str:
        """The text up to the end of the repeated piece's first occurrence (all of it while no
        loop was found). Where a loop starts is ambiguous by a rotation of the piece; the cut
        goes after a line break, else a sentence's end, else a word, within the second
        occurrence."""
        text = self.text
        period = self.period
        if period is None:
            return text
        start = len(text) - self.window
        while start > 0 and text[start - 1] == text[start - 1 + period]:
            start -= 1
        cuts = range(start + period, start + 2 * period)
        for ends_piece in (_line_end, _sentence_end, _word_end):
            for cut in cuts:
                if ends_piece(text, cut):
                    return text[:cut]
        return text[: start + period]


def _line_end(text: str, cut: int) -> bool:
    return text[cut - 1] == "\n"


def _sentence_end(text: str, cut: int) -> bool:
    return text[cut - 1].isspace() and text[cut - 2] in ".!?"


def _word_end(text: str, cut: int) -> bool:
    return text[cut - 1].isspace()


def _period(tail: str) -> int | None:
    """The shortest p such that `tail` repeats itself every p characters, at least
    `MIN_REPEATS` times over; None when it does not."""
    last = len(tail) - 1
    for period in range(1, len(tail) // MIN_REPEATS + 1):
        # a cheap look at one character first; the full comparison runs in C
        if tail[last] == tail[last - period] and tail[period:] == tail[:-period]:
            return period
    return None

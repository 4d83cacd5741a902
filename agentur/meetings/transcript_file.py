"""A meeting transcript as a text file, one utterance a line, for the reference bridge and
tests: `[mm:ss] Speaker: what was said` — the time offset is optional (lines without one follow
the previous line after the player's pace); blank lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(
    r"^(?:\[(?:(?P<h>\d+):)?(?P<m>\d{1,2}):(?P<s>\d{2})\]\s*)?(?P<who>[^:]{1,200}):\s*(?P<text>.+)$"
)


@dataclass(frozen=True, slots=True)
class ScriptLine:
    offset_seconds: float | None
    speaker: str
    text: str


def parse_transcript(text: str) -> list[ScriptLine]:
    lines: list[ScriptLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ValueError(f"line {number} is not `[mm:ss] Speaker: text`: {line[:80]!r}")
        offset = None
        if match["s"] is not None:
            offset = int(match["h"] or 0) * 3600 + int(match["m"]) * 60 + int(match["s"])
        lines.append(ScriptLine(offset, match["who"].strip(), match["text"].strip()))
    return lines

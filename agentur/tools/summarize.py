"""`summarize`: a text or workspace file summarized through the gateway, map-reduce.

The input is cut into windows at paragraph/sentence boundaries; each window is a section
`S1…Sn` (character range and the Markdown heading in force). Map: one call per window writes
notes. Reduce: the notes (for a single window, its text) become one summary that cites the
sections it rests on as `[S2]`; when the notes are too long for one call they are first
condensed in groups, citations kept. Every call is `data_analyse` (neutralized and billed)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from agentur.ai.messages import AiResponse, Message
from agentur.ai.operation_types import OperationType
from agentur.tools.gateway_call import ask_model
from agentur.tools.text_input import TextOrFile, input_text, windows
from agentur.tools.tool import Tool, ToolContext

WINDOW_CHARS = 12_000
NOTES_WORDS = 150
NOTES_TOKENS = 400
REDUCE_CHARS = 24_000  # notes per reduce call; more are condensed in groups first
WORDS = {"short": 80, "medium": 250, "long": 600}
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
MISSING = (
    "no chat model is configured to summarize with; set AGENTUR_OPENAI_API_KEY, "
    "AGENTUR_ANTHROPIC_API_KEY, AGENTUR_GOOGLE_API_KEY, AGENTUR_MISTRAL_API_KEY or "
    "AGENTUR_OPENAI_COMPATIBLE_BASE_URL"
)
KEEP = "Keep figures, dates and names exactly; keep placeholders such as [EMAIL_1] unchanged."


class SummarizeArguments(TextOrFile):
    focus: str | None = Field(
        default=None, max_length=500, description="What the summary should concentrate on."
    )
    length: Literal["short", "medium", "long"] = "medium"


@dataclass(frozen=True, slots=True)
class Section:
    id: str
    start: int
    end: int
    heading: str | None

    def label(self) -> str:
        where = f"characters {self.start}–{self.end}"
        return f"[{self.id}] ({where}{f', under {self.heading!r}' if self.heading else ''})"


def sections_of(text: str) -> tuple[list[Section], list[str]]:
    pieces = windows(text, WINDOW_CHARS)
    headings = [(m.start(), m.group(1)) for m in HEADING.finditer(text)]
    sections, start = [], 0
    for number, piece in enumerate(pieces, 1):
        end = start + len(piece)
        in_force = [title for at, title in headings if at <= start]
        inside = [title for at, title in headings if start < at < end]
        heading = in_force[-1] if in_force else (inside[0] if inside else None)
        sections.append(Section(f"S{number}", start, end, heading))
        start = end
    return sections, pieces


async def _ask(context: ToolContext, system: str, user: str, tokens: int) -> AiResponse:
    messages = [Message.system(system), Message.user(user)]
    return await ask_model(
        context,
        OperationType.data_analyse,
        messages,
        MISSING,
        temperature=0.0,
        max_output_tokens=tokens,
    )


def _focus(args: SummarizeArguments) -> str:
    return f" Concentrate on: {args.focus}." if args.focus else ""


def _groups(notes: list[str]) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    for note in notes:
        if groups[-1] and sum(map(len, groups[-1])) + len(note) > REDUCE_CHARS:
            groups.append([])
        groups[-1].append(note)
    return groups


async def summarize(args: SummarizeArguments, context: ToolContext) -> dict[str, Any]:
    source, text = await input_text(args, context)
    sections, pieces = sections_of(text)
    models: list[str] = []
    if len(pieces) == 1:
        notes = [f"{sections[0].label()}\n{pieces[0]}"]
    else:
        notes = []
        for section, piece in zip(sections, pieces, strict=True):
            system = (
                f"You read section {section.id} of a longer text. Write compact notes on it "
                f"(at most {NOTES_WORDS} words).{_focus(args)} {KEEP}"
            )
            response = await _ask(context, system, piece, NOTES_TOKENS)
            models.append(response.model)
            notes.append(f"{section.label()}\n{response.text.strip()}")
    while sum(map(len, notes)) > REDUCE_CHARS and len(notes) > 1:
        condensed = []
        for group in _groups(notes):
            system = (
                "Condense these section notes into shorter notes. Keep each statement's "
                f"section markers such as [S2].{_focus(args)} {KEEP}"
            )
            response = await _ask(context, system, "\n\n".join(group), NOTES_TOKENS * 2)
            models.append(response.model)
            condensed.append(response.text.strip())
        notes = condensed
    words = WORDS[args.length]
    system = (
        f"Summarize the text given as sections in about {words} words.{_focus(args)} After "
        "each statement cite the sections it rests on as [S1], [S2] … — only sections that "
        f"exist. {KEEP} Answer with the summary only."
    )
    response = await _ask(context, system, "\n\n".join(notes), words * 2 + 200)
    models.append(response.model)
    cited = sorted(set(re.findall(r"\[(S\d+)\]", response.text)), key=lambda s: int(s[1:]))
    known = {s.id for s in sections}
    return {
        "summary": response.text.strip(),
        "file_id": source.id if source else None,
        "sections": [
            {"id": s.id, "start": s.start, "end": s.end, "heading": s.heading} for s in sections
        ],
        "cited_sections": [s for s in cited if s in known],
        "calls": len(models),
        "source_length": len(text),
        "models": sorted(set(models)),
    }


TOOLS = [
    Tool(
        name="summarize",
        description="Summarize a text or workspace file (text, PDF, DOCX, XLSX, HTML, scan; any "
        "length: map-reduce over windows), optionally with a focus; the summary cites sections "
        "[S1]… with ranges.",
        arguments=SummarizeArguments,
        handler=summarize,
        read_only=True,
        toolbox="ai",
        timeout_seconds=900.0,  # a long file is many model calls
    )
]

"""Whether a knowledge answer says only what its passages say, checked before it is sent.

Each sentence of the answer is a claim. A claim with citation markers must be supported by the
passages it cites: most of its content-word stems occur in them (prefix match, so "open" meets
"opening") and every number it states does. A claim without a marker may only be courtesy: one
that states a number or a definite yes/no ("Nein, es gibt keine …") must be supported by some
passage. An answer with no marker at all is not grounded.

Lexical, not by embedding: it needs no model call, runs in microseconds, and a wrong figure
("two working days" where the passage says five) or a service no passage names has stems or
numbers the passage lacks. It does not see across languages; an answer in another language
than the documents therefore falls back to the quoted passages, which is safe.

`supporting` names the passages that support any claim (or state all of a claim's numbers,
which holds across languages): the extractive answer quotes them first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentur.assistant.cite_passages import MARKER, cited_numbers
from agentur.assistant.text_tokens import fold, stems

# Share of a claim's content-word stems that its passages must contain.
SUPPORTED = 0.6
# Shortest stem that matches longer words by prefix ("open" → "opening").
PREFIX = 4
# A question counts as covered by a passage when this share of its stems occurs there.
COVERED = 0.5
SENTENCE = re.compile(r"(?<=[.!?])\s+")
NUMBER = re.compile(r"\d+")
LEADING_MARKERS = re.compile(r"^(?:" + MARKER.pattern + r"[\s.,;:]*)+")
YES_NO = frozenset(["yes", "no", "yeah", "nope", "ja", "nein", "doch", "oui", "non", "si", "certo"])
NEGATED = re.compile(
    r"\b(es gibt kein|wir (haben|bieten) kein|there (is|are) no|we (do not|don't) "
    r"(offer|have|sell)|il n'y a pas|nous n'avons pas|nous ne proposons pas|non c'e|"
    r"non (abbiamo|offriamo))",
)


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    cited: tuple[int, ...]  # passage numbers the sentence cites (1-based)

    @property
    def plain(self) -> str:
        return MARKER.sub(" ", self.text)

    @property
    def definite(self) -> bool:
        """States a number or a definite yes/no: never without a source."""
        folded = fold(self.plain).strip()
        first = re.split(r"[\s,.!:;]+", folded, maxsplit=1)[0]
        return bool(NUMBER.search(folded)) or first in YES_NO or bool(NEGATED.search(folded))


@dataclass(frozen=True, slots=True)
class Verdict:
    grounded: bool
    reason: str  # why not ("" when grounded)
    supporting: list[int] = field(default_factory=list)  # passage numbers, 1-based


def claims(answer: str) -> list[Claim]:
    """The answer's sentences with the passages each cites. Markers written after a sentence's
    full stop ("… 16:00. [2]", as models often place them) belong to that sentence; a piece of
    nothing but markers is no claim (it would be "supported" by any passage)."""
    found: list[Claim] = []
    for piece in SENTENCE.split(answer.strip()):
        sentence = piece.strip()
        if found and (leading := LEADING_MARKERS.match(sentence)):
            last = found[-1]
            markers = leading.group(0).strip()
            cited = tuple(dict.fromkeys([*last.cited, *cited_numbers(markers)]))
            found[-1] = Claim(f"{last.text} {markers}", cited)
            sentence = sentence[leading.end() :].strip()
        if any(character.isalnum() for character in MARKER.sub(" ", sentence)):
            found.append(Claim(sentence, tuple(cited_numbers(sentence))))
    return found


def _matches(stem: str, passage: set[str]) -> bool:
    if stem in passage:
        return True
    if len(stem) < PREFIX:
        return False
    return any(
        word.startswith(stem) or (len(word) >= PREFIX and stem.startswith(word)) for word in passage
    )


def support(claim: str, passage: str) -> float:
    """Share of the claim's content stems found in the passage; 0 when a number is missing."""
    numbers = set(NUMBER.findall(passage))
    if any(number not in numbers for number in NUMBER.findall(claim)):
        return 0.0
    wanted = stems(claim)
    if not wanted:
        return 1.0
    words = set(stems(passage))
    return sum(_matches(stem, words) for stem in wanted) / len(wanted)


def states_numbers(claim: str, passage: str) -> bool:
    """The claim states numbers and the passage all of them (holds across languages)."""
    wanted = NUMBER.findall(claim)
    return bool(wanted) and set(wanted) <= set(NUMBER.findall(passage))


def coverage(question: str, passage: str) -> float:
    """Share of the question's content stems (numbers aside) that occur in the passage."""
    wanted = [stem for stem in stems(question) if not stem.isdigit()]
    words = set(stems(passage))
    return sum(_matches(s, words) for s in wanted) / len(wanted) if wanted else 0.0


def covers(question: str, passage: str) -> bool:
    """Whether the passage speaks of what the question asks (most of its stems occur)."""
    return coverage(question, passage) >= COVERED


def check_answer(answer: str, passages: list[str], live: list[str] | None = None) -> Verdict:
    """`passages` are the texts the model saw, numbered from 1 as in its prompt; `live` are
    results of API calls the model made (no markers to cite them by): with them, uncited
    sentences are checked against them too and the answer needs no marker."""
    live = live or []
    found = claims(answer)
    supporting: dict[int, None] = {}
    for claim in found:
        for number, text in enumerate(passages, start=1):
            if support(claim.plain, text) >= SUPPORTED or states_numbers(claim.plain, text):
                supporting.setdefault(number, None)
    reason = ""
    if not live and not any(claim.cited for claim in found):
        reason = "the answer cites no passage"
    for claim in found:
        if reason:
            break
        if claim.cited:
            if any(not 1 <= n <= len(passages) for n in claim.cited):
                reason = f"a sentence cites a passage that does not exist: {claim.text!r}"
            elif support(claim.plain, "\n".join(passages[n - 1] for n in claim.cited)) < SUPPORTED:
                reason = f"a sentence says what its passages do not: {claim.text!r}"
        elif claim.definite and not any(
            support(claim.plain, text) >= SUPPORTED for text in [*passages, *live]
        ):
            reason = f"an uncited sentence states a fact no passage supports: {claim.text!r}"
    return Verdict(not reason, reason, list(supporting))

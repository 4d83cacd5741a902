"""The name and locality lists the free-text recognizers consult (sources and licences in
`agentur/ai/neutralization/data/README.md`), loaded once per process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


@lru_cache(maxsize=8)
def _entries(name: str) -> frozenset[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip())


def normalized(word: str) -> str:
    """ "MÜLLER" and "müller" look up as "Müller"; hyphenated parts each capitalized."""
    return "-".join(part[:1].upper() + part[1:].lower() for part in word.split("-"))


def given_names() -> frozenset[str]:
    return _entries("given_names.txt")


def localities() -> frozenset[str]:
    return _entries("localities.txt")


def is_given_name(word: str) -> bool:
    """A known given name; a hyphenated one ("Jean-Pierre", "Anne-Marie") when every part is."""
    names = given_names()
    word = normalized(word)
    return word in names or ("-" in word and all(part in names for part in word.split("-")))

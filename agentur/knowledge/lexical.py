"""Language-aware lexical terms, the same on both backends.

Text is split into words, accents folded (`Zürich` → `zurich`), and each word indexed twice:
folded as written and as its Snowball stem in the chunk's language (German, French, Italian,
English; detected by lingua, see agentur/detect_language.py). Queries get the same treatment
in the query's language and match any term (OR), ranked by BM25 (see lexical_leg.py). Longer
query words also match as prefixes, which catches the head of German compounds (`Aufzug` →
`Aufzugsanlage`); which indexed words a prefix stands for is decided in lexical_plan.py.
"""

from __future__ import annotations

import re
import threading
import unicodedata

import snowballstemmer

from agentur.detect_language import detect_language as detect_among

LANGUAGES = {"de": "german", "fr": "french", "it": "italian", "en": "english"}
SIMPLE = "simple"
PREFIX_MIN_LENGTH = 5  # shorter query words match exactly only (prefixes would flood)
MAX_QUERY_TERMS = 32


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split(" "))


STOPWORDS: dict[str, frozenset[str]] = {
    "de": _set(
        "der die das und ist in zu den von mit sich des auf für nicht im dem ein eine als auch es "
        "an wer wie was wo wann warum welche welcher welches wird werden hat haben sind war "
        "bei aus nach oder um einer einem eines noch über so zum zur kann"
    ),
    "fr": _set(
        "le la les et est un une des du de en que qui dans pour pas sur au aux avec ce cette "
        "il elle ils sont ont par plus ou comment quel quelle quand pourquoi où"
    ),
    "it": _set(
        "il lo la i gli le e è un una di da in con su per tra fra che non del della dei "
        "sono come quale quando perché dove chi cosa"
    ),
    "en": _set(
        "the a an and is are was were of to in on for with that this it as by at from or be "
        "what who when where why how which has have do does did"
    ),
}
WORD = re.compile(r"\w+", re.UNICODE)


def fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("ß", "ss")


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def detect_language(text: str, default: str = "en") -> str:
    """The Snowball language of `text` (lingua, see agentur/detect_language.py); `default`
    when lingua cannot tell (short or mixed text) or for a language without a stemmer here."""
    fallback = default if default in LANGUAGES else "en"
    return detect_among(text, LANGUAGES, fallback)


_thread_stemmers = threading.local()


def _stemmer(language: str) -> snowballstemmer.stemmer:
    """One stemmer per language and thread: a Snowball stemmer keeps the word it works on in
    its own fields, so two threads sharing one (indexing beside a search) corrupt each other."""
    stemmers: dict[str, snowballstemmer.stemmer] = _thread_stemmers.__dict__
    if language not in stemmers:
        stemmers[language] = snowballstemmer.stemmer(LANGUAGES.get(language, "english"))
    return stemmers[language]


def index_terms(text: str, language: str) -> str:
    """The space-separated terms stored for a chunk (folded words plus their stems)."""
    raw = words(text)
    stems = _stemmer(language).stemWords(raw)
    terms: list[str] = []
    for word, stem in zip(raw, stems, strict=True):
        folded = fold(word)
        terms.append(folded)
        folded_stem = fold(stem)
        if folded_stem != folded:
            terms.append(folded_stem)
    return " ".join(terms)


def query_terms(query: str, language: str) -> list[tuple[str, bool]]:
    """(term, is_prefix) pairs for a query, stop words removed, duplicates dropped."""
    return [(term, is_prefix) for term, is_prefix, _ in query_terms_by_word(query, language)]


def query_terms_by_word(query: str, language: str) -> list[tuple[str, bool, int]]:
    """`query_terms` with the number of the query word each term came from (a word and its
    stem are two terms of one word)."""
    raw = [w for w in words(query) if w not in STOPWORDS.get(language, frozenset())] or words(query)
    stems = _stemmer(language).stemWords(raw)
    seen: dict[str, tuple[bool, int]] = {}
    for number, (word, stem) in enumerate(zip(raw, stems, strict=True)):
        for term in (fold(word), fold(stem)):
            if term and term not in seen:
                seen[term] = (len(term) >= PREFIX_MIN_LENGTH, number)
    return [(term, p, n) for term, (p, n) in list(seen.items())[:MAX_QUERY_TERMS]]

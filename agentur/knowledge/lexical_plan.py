"""Which indexed terms a lexical search looks up, chosen from document frequencies.

A query's terms (see `lexical.query_terms`) become groups: the term itself plus, for prefix
terms, the most frequent indexed words it is a prefix of. Document frequencies (df) decide two
things, the same on both backends:
- prefix expansion stops before a group's postings exceed the candidate budget, so a common
  head word (`haus*`) does not drag in thousands of rows;
- only the rarest groups, up to the budget of postings, generate candidates. Rows that match
  nothing but common terms would score lowest under BM25 anyway, and skipping them bounds the
  work at any corpus size (a second pass with every term runs when filters leave too few).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_EXPANSIONS = 32  # indexed words one prefix term may stand for
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True, slots=True)
class TermGroup:
    term: str
    lexemes: dict[str, int] = field(default_factory=dict)  # indexed word -> df
    # A prefix term whose every indexed expansion is in `lexemes`: FTS5 may then match it as
    # one prefix phrase (`"haus"*`), scored as before the plan existed.
    complete_prefix: bool = False

    @property
    def postings(self) -> int:
        return sum(self.lexemes.values())


@dataclass(frozen=True, slots=True)
class LexicalPlan:
    groups: list[TermGroup]  # every group with postings, rarest first
    selected: int  # how many of the rarest groups generate the first pass's candidates

    @property
    def narrowed(self) -> bool:
        return self.selected < len(self.groups)

    def chosen(self, *, all_groups: bool = False) -> list[TermGroup]:
        return self.groups if all_groups else self.groups[: self.selected]

    def lexemes(self, *, all_groups: bool = False) -> list[str]:
        return sorted({lexeme for g in self.chosen(all_groups=all_groups) for lexeme in g.lexemes})


@dataclass(frozen=True, slots=True)
class LexicalLimits:
    """What one lexical search may touch (settings `knowledge_lexical_*`)."""

    budget: int  # postings one pass may read
    rescored: int = 200  # PostgreSQL: candidates that get full BM25
    checked: int = 400  # PostgreSQL: best candidates by the cheap score whose visibility is checked


def make_plan(
    terms: Sequence[tuple[str, bool]],
    exact_df: dict[str, int],
    expansions: dict[str, list[tuple[str, int]]],
    budget: int,
    prefix_postings: dict[str, int] | None = None,
) -> LexicalPlan:
    """`exact_df`: df of each query term; `expansions`: prefix term -> (word, df), most frequent
    first (at most MAX_EXPANSIONS); `prefix_postings`: prefix term -> summed df of every word
    it is a prefix of; `budget`: the postings a pass may touch."""
    prefix_postings = prefix_postings or {}
    groups: list[TermGroup] = []
    for term, is_prefix in terms:
        lexemes: dict[str, int] = {}
        if exact_df.get(term, 0) > 0:
            lexemes[term] = exact_df[term]
        complete = False
        if is_prefix:
            found = expansions.get(term, [])
            everything = exact_df.get(term, 0) + prefix_postings.get(
                term, sum(df for _, df in found)
            )
            complete = everything <= budget  # cheap enough to match as one prefix phrase
            total = sum(lexemes.values())
            for word, df in found:
                if word in lexemes or df <= 0:
                    continue
                if total + df > budget:
                    complete = False
                    break
                lexemes[word] = df
                total += df
        if lexemes:
            groups.append(TermGroup(term, lexemes, complete))
    groups.sort(key=lambda group: (group.postings, group.term))
    selected, total = 0, 0
    for group in groups:
        if selected and total + group.postings > budget:
            break
        selected += 1
        total += group.postings
    return LexicalPlan(groups, selected)


def idf(df: int, documents: int) -> float:
    """BM25 (Robertson–Spärck Jones) inverse document frequency, never negative."""
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))

"""Finds personal data with the registered recognizers and swaps it for placeholders.

Free-text person names, street addresses, postcodes with localities and birth dates are found
by rules next to evidence (gazetteers, honorifics, cue words); what they miss is documented in
the README (there is no NER model). Mandates list such values (customer names, customer
numbers) as custom terms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.neutralization.recognizers.base import Recognizer
from agentur.ai.neutralization.recognizers.custom_terms import custom_terms_recognizer
from agentur.ai.neutralization.registry import DEFAULT_RECOGNIZERS


@dataclass(frozen=True, slots=True)
class Finding:
    start: int
    end: int
    entity_type: str
    key: str


class Neutralizer:
    def __init__(self, recognizers: Sequence[Recognizer] = DEFAULT_RECOGNIZERS) -> None:
        self.recognizers = tuple(recognizers)

    def _recognizers(self, custom_terms: Sequence[str]) -> tuple[Recognizer, ...]:
        terms = custom_terms_recognizer(custom_terms) if custom_terms else None
        return (terms, *self.recognizers) if terms else self.recognizers

    def find(self, text: str, custom_terms: Sequence[str] = ()) -> list[Finding]:
        """Non-overlapping findings in text order; on overlap the higher priority, then the
        longer span wins."""
        candidates: list[tuple[int, int, Finding]] = []
        for recognizer in self._recognizers(custom_terms):
            for span in recognizer.find(text):
                key = span.key if span.key is not None else text[span.start : span.end]
                finding = Finding(span.start, span.end, recognizer.entity_type, key)
                candidates.append((recognizer.priority, span.end - span.start, finding))
        if not candidates:
            return []
        candidates.sort(key=lambda c: (c[0], c[1]), reverse=True)
        kept: list[Finding] = []
        for _, _, finding in candidates:
            if all(finding.end <= k.start or finding.start >= k.end for k in kept):
                kept.append(finding)
        kept.sort(key=lambda f: f.start)
        return kept

    def entity_types(self, text: str, custom_terms: Sequence[str] = ()) -> set[str]:
        return {finding.entity_type for finding in self.find(text, custom_terms)}

    def neutralize(
        self, text: str, mapping: PlaceholderMap, custom_terms: Sequence[str] = ()
    ) -> str:
        findings = self.find(text, custom_terms)
        if not findings:
            return text
        parts: list[str] = []
        position = 0
        for finding in findings:
            parts.append(text[position : finding.start])
            value = text[finding.start : finding.end]
            parts.append(mapping.placeholder_for(finding.entity_type, value, finding.key))
            position = finding.end
        parts.append(text[position:])
        return "".join(parts)

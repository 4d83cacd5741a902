"""Stable placeholders per workflow: the same value always becomes the same `[TYPE_n]`, so the
model sees consistent references across rounds. The map is the secret half of neutralization:
it is stored encrypted (`mapping_cipher.py`, `database_gateway_store.py`) and never logged
(its repr hides the values)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\[([A-Z]{2,10})_(\d{1,6})\]")
# Longest placeholder text; the stream re-identifier holds back at most this many characters.
MAX_PLACEHOLDER_LENGTH = 2 + 10 + 1 + 6


@dataclass
class PlaceholderMap:
    # (entity type, normalized key) -> placeholder
    _by_key: dict[tuple[str, str], str] = field(default_factory=dict)
    # placeholder -> the value as first seen
    _values: dict[str, str] = field(default_factory=dict)
    _counters: dict[str, int] = field(default_factory=dict)
    changed: bool = False

    def __repr__(self) -> str:  # never print the values
        return f"PlaceholderMap({len(self._values)} entries)"

    def __len__(self) -> int:
        return len(self._values)

    def placeholder_for(self, entity_type: str, value: str, key: str | None = None) -> str:
        lookup = (entity_type, key if key is not None else value)
        existing = self._by_key.get(lookup)
        if existing is not None:
            return existing
        number = self._counters.get(entity_type, 0) + 1
        self._counters[entity_type] = number
        placeholder = f"[{entity_type}_{number}]"
        self._by_key[lookup] = placeholder
        self._values[placeholder] = value
        self.changed = True
        return placeholder

    def value_of(self, placeholder: str) -> str | None:
        return self._values.get(placeholder)

    def reidentify(self, text: str) -> str:
        if not self._values or "[" not in text:
            return text
        return PLACEHOLDER.sub(lambda m: self._values.get(m.group(), m.group()), text)

    def to_json(self) -> str:
        return json.dumps(
            {
                "entries": [[t, k, p] for (t, k), p in self._by_key.items()],
                "values": self._values,
                "counters": self._counters,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> PlaceholderMap:
        data = json.loads(text)
        return cls(
            _by_key={(t, k): p for t, k, p in data["entries"]},
            _values=dict(data["values"]),
            _counters=dict(data["counters"]),
        )

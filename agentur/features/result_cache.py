"""Results of feature-data queries, kept for a while (5 minutes by default).

Keyed by tenant, instance, tool and the validated arguments, so one tenant can never see
another's result. Writes to an instance (imports, actions) bump its generation, which is part
of the key: a result read before a write is never served after it. Bounded in entries; the
least recently used go first.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ResultCache:
    ttl_seconds: float = 300.0
    max_entries: int = 1_000
    clock: Callable[[], float] = time.monotonic
    _entries: OrderedDict[tuple, tuple[float, Any]] = field(default_factory=OrderedDict)
    _generations: dict[tuple[str, str], int] = field(default_factory=dict)

    def key(self, mandate_id: str, instance_id: str, tool: str, arguments: dict) -> tuple:
        generation = self._generations.get((mandate_id, instance_id), 0)
        canonical = json.dumps(arguments, sort_keys=True, default=str)
        return (mandate_id, instance_id, generation, tool, canonical)

    def get(self, key: tuple) -> Any | None:
        entry = self._entries.get(key)
        if entry is None or entry[0] <= self.clock():
            if entry is not None:
                del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put(self, key: tuple, value: Any) -> None:
        if self.max_entries <= 0 or self.ttl_seconds <= 0:
            return
        self._entries[key] = (self.clock() + self.ttl_seconds, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def invalidate(self, mandate_id: str, instance_id: str) -> None:
        generation = (mandate_id, instance_id)
        self._generations[generation] = self._generations.get(generation, 0) + 1

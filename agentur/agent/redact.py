"""Secret redaction for persisted traces: tool arguments and results may carry credentials."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"
# Whole words of a key name: `access_token`, `apiKey`, `password` — not `input_tokens`.
SECRET_KEY = re.compile(
    r"(^|[_\-.]|(?<=[a-z]))(pass(word|wd)?|secret|token|api[_\-]?key|authorization"
    r"|credentials?|private[_\-]?key|cookie)($|[_\-.])",
    re.IGNORECASE,
)
SECRET_VALUE = re.compile(
    r"(Bearer\s+[A-Za-z0-9._~+/=-]{8,}"
    r"|\bsk-[A-Za-z0-9_-]{16,}"
    r"|\bagt_[A-Za-z0-9]+_[A-Za-z0-9_-]{8,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)


def redact_text(text: str) -> str:
    return SECRET_VALUE.sub(REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of `value` with secret-looking keys' values and secret-looking strings replaced."""
    if isinstance(value, dict):
        return {
            key: REDACTED
            if isinstance(key, str) and SECRET_KEY.search(key) and value[key] not in (None, "")
            else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    if isinstance(value, str):
        return redact_text(value)
    return value

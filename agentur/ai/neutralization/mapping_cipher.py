"""Encryption at rest of placeholder maps (Fernet: AES-128-CBC + HMAC-SHA256).

The key comes from `AGENTUR_NEUTRALIZATION_KEY` or is generated once into a file in the data
directory (mode 0600). Losing the key makes stored mappings unreadable — answers then keep
their placeholders; nothing leaks."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from agentur.ai.neutralization.placeholder_map import PlaceholderMap


def load_or_create_key(path: Path) -> bytes:
    if path.exists():
        return path.read_bytes().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key)
    return key


class MappingCipher:
    def __init__(self, key: bytes | str) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def generated(cls) -> MappingCipher:
        """A process-lifetime key (tests, a service without a data directory)."""
        return cls(Fernet.generate_key())

    def __repr__(self) -> str:
        return "MappingCipher(<key hidden>)"

    def encrypt(self, mapping: PlaceholderMap) -> bytes:
        return self._fernet.encrypt(mapping.to_json().encode())

    def decrypt(self, token: bytes) -> PlaceholderMap:
        try:
            return PlaceholderMap.from_json(self._fernet.decrypt(token).decode())
        except InvalidToken:
            # A rotated key: start a fresh map rather than failing the workflow.
            return PlaceholderMap()

"""Encrypts stored secrets at rest (Fernet: AES-128-CBC + HMAC-SHA256): API-catalog credentials
of assistants and the credentials of connections, under one key.

The key comes from `AGENTUR_ASSISTANT_SECRET_KEY`, or from a key file created once in the data
dir with mode 0600. Decrypted values only exist while the request that needs them is built.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from agentur.errors import AgenturError

KEY_FILE = "assistant-secret.key"


class SecretsBox:
    def __init__(self, key: str | bytes) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def from_settings(cls, secret_key: str | None, data_dir: Path) -> SecretsBox:
        if secret_key:
            return cls(secret_key)
        path = data_dir / KEY_FILE
        if not path.exists():
            data_dir.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(Fernet.generate_key())
        return cls(path.read_bytes().strip())

    def seal_text(self, text: str) -> str:
        return self._fernet.encrypt(text.encode()).decode()

    def open_text(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken as error:
            raise AgenturError("a stored credential cannot be decrypted with this key") from error

    def _decrypt(self, token: str) -> bytes:
        return self._fernet.decrypt(token.encode())

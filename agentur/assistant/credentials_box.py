"""API-catalog credentials sealed with the core secrets box (`agentur/secrets_box.py`)."""

from __future__ import annotations

from cryptography.fernet import InvalidToken

from agentur.assistant.definition import ApiCredential
from agentur.errors import AgenturError
from agentur.secrets_box import SecretsBox


class CredentialsBox(SecretsBox):
    def seal(self, credential: ApiCredential) -> str:
        return self.seal_text(credential.model_dump_json())

    def open(self, token: str) -> ApiCredential:
        try:
            return ApiCredential.model_validate_json(self._decrypt(token))
        except InvalidToken as error:
            raise AgenturError(
                "the stored API credential cannot be decrypted with this key"
            ) from error

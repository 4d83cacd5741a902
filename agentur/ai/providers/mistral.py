"""Mistral (api.mistral.ai): the OpenAI chat format with three quirks.

- Tool-call ids must be exactly 9 letters/digits; ids minted elsewhere (after a fallback from
  another provider mid-conversation) are mapped to such ids, deterministically, so a call and
  its result still match.
- Tool results carry the tool's `name`.
- Image parts carry the data URL directly (`"image_url": "data:…"`), not in an object.
- No `stream_options`: Mistral rejects unknown fields and sends usage in the last chunk anyway.
"""

from __future__ import annotations

import hashlib
import re
import string
from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.messages import ImagePart, Message, Role
from agentur.ai.providers.base import OPTIONAL_PARAMETERS
from agentur.ai.providers.openai_chat import OpenAIChatProvider
from agentur.ai.providers.openai_embeddings import OpenAIEmbeddingModels
from agentur.ai.providers.vendor import Vendor, VendorSettings

MISTRAL_BASE_URL = "https://api.mistral.ai/v1"
_VALID_ID = re.compile(r"^[A-Za-z0-9]{9}$")
_ALPHABET = string.ascii_letters + string.digits


def mistral_tool_call_id(call_id: str) -> str:
    if _VALID_ID.match(call_id):
        return call_id
    number = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    digits = []
    for _ in range(9):
        number, remainder = divmod(number, len(_ALPHABET))
        digits.append(_ALPHABET[remainder])
    return "".join(digits)


class MistralProvider(OpenAIEmbeddingModels, OpenAIChatProvider):
    name = "mistral"
    default_base_url: ClassVar[str | None] = MISTRAL_BASE_URL
    send_stream_options: ClassVar[bool] = False
    # Mistral names the seed `random_seed`; it is not passed on.
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = OPTIONAL_PARAMETERS - {"seed"}

    def map_tool_call_id(self, call_id: str) -> str:
        return mistral_tool_call_id(call_id)

    def image_part(self, image: ImagePart) -> dict[str, Any]:
        return {"type": "image_url", "image_url": image.data_url()}

    def map_message(self, message: Message) -> dict[str, Any]:
        mapped = super().map_message(message)
        if message.role == Role.tool and message.tool_name:
            mapped["name"] = message.tool_name
        return mapped


class MistralSettings(VendorSettings):
    mistral_api_key: str | None = Field(default=None, description="Mistral API key.")
    mistral_base_url: str | None = Field(default=None, description="Mistral base URL override.")


VENDOR = Vendor(MistralSettings, MistralProvider)

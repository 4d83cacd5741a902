"""Settings of the OpenAI-compatible API at `/openai/v1`."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import Field, field_validator

from agentur.config import PartSettings


class OpenAICompatibleSettings(PartSettings):
    openai_cors_origins: str = Field(
        default="",
        description="Comma-separated origins (`https://chat.example.com`) whose web pages may "
        "call `/openai/v1` from the browser (CORS), or `*` for any; empty: none.",
    )

    @field_validator("openai_cors_origins")
    @classmethod
    def _origins_parse(cls, value: str) -> str:
        for origin in _split(value):
            parts = urlsplit(origin)
            if origin != "*" and (
                parts.scheme not in ("http", "https") or not parts.netloc or parts.path
            ):
                raise ValueError(f"{origin!r} is not an origin like https://chat.example.com")
        return value

    @property
    def cors_origins(self) -> tuple[str, ...]:
        return tuple(_split(self.openai_cors_origins))


def _split(value: str) -> list[str]:
    return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]

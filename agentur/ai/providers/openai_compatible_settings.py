"""Settings of the OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio …) that
the `openai_compatible` adapter talks to: where it is, which models it serves, what those models
are assumed to hold, and its own time limits (a local server on CPU may read a long prompt for
minutes). Flat names with the `openai_compatible_` prefix (`AGENTUR_OPENAI_COMPATIBLE_*`).

Unlike a hosted vendor (a key and a base URL, `vendor.VendorSettings`), the server has more to
say, so it has a settings class of its own; setting its base URL activates the provider."""

from __future__ import annotations

from pydantic import Field, field_validator

from agentur.ai.providers.http_transport import Timeouts
from agentur.config import PartSettings, count, seconds


class OpenAICompatibleServerSettings(PartSettings):
    openai_compatible_base_url: str | None = Field(
        default=None,
        description="Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp), "
        "e.g. `http://127.0.0.1:11434/v1`. Setting it activates the provider.",
    )
    openai_compatible_api_key: str | None = Field(
        default=None, description="API key for the OpenAI-compatible server (optional)."
    )
    openai_compatible_models: str | None = Field(
        default=None,
        description="Comma-separated model names served there. Empty: asked from the "
        "server's `GET /models` at start-up.",
    )
    openai_compatible_context_window: int = Field(
        default=32_768, ge=256, description="Context window assumed for OpenAI-compatible models."
    )
    openai_compatible_max_output_tokens: int = count(
        4_096, "Max output tokens assumed for OpenAI-compatible models."
    )
    openai_compatible_recover_text_tool_calls: bool = Field(
        default=True,
        description="Recover tool calls that OpenAI-compatible models write as text "
        "(`<tool_call>`, `<function=…>`, fenced JSON) when the server returns none.",
    )
    openai_compatible_join_round_context: bool = Field(
        default=False,
        description="Send the agent's round context (clock, knowledge) inside the user's last "
        "message, marked off, instead of as its own user turn — only for chat templates that "
        "refuse two user turns in a row (Mistral, Gemma).",
    )
    openai_compatible_server_slots: int = Field(
        default=0,
        ge=0,
        le=256,
        description="The server's parallel slots (llama-server `--parallel`): each workflow's "
        "calls go to one slot (`id_slot`) so its cached prompt prefix is reused; 0 names none.",
    )
    openai_compatible_first_token_timeout_seconds: float = seconds(
        900.0,
        "First-byte limit for the OpenAI-compatible server: a local server on "
        "CPU may read a long prompt for minutes before it answers.",
    )
    openai_compatible_stream_idle_timeout_seconds: float = seconds(
        120.0, "Stream silence limit for the OpenAI-compatible server."
    )
    openai_compatible_request_timeout_seconds: float = seconds(
        1_800.0, "Limit of a whole non-streamed call to the OpenAI-compatible server."
    )

    @field_validator(
        "openai_compatible_base_url",
        "openai_compatible_api_key",
        "openai_compatible_models",
        mode="before",
    )
    @classmethod
    def _empty_means_unset(cls, value: object) -> object:
        # `AGENTUR_OPENAI_COMPATIBLE_BASE_URL=` in an env file means "not configured".
        return None if value == "" else value

    @property
    def model_names(self) -> list[str]:
        return [
            name.strip()
            for name in (self.openai_compatible_models or "").split(",")
            if name.strip()
        ]

    def timeouts(self, connect_seconds: float) -> Timeouts:
        """The server's own limits (connecting is as quick as anywhere); a timeout error names
        these settings."""
        return Timeouts(
            connect_seconds,
            self.openai_compatible_first_token_timeout_seconds,
            self.openai_compatible_stream_idle_timeout_seconds,
            self.openai_compatible_request_timeout_seconds,
            "AGENTUR_OPENAI_COMPATIBLE_",
        )

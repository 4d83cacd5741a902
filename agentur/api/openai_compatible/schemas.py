"""The request body of `POST /chat/completions`, as OpenAI defines it: the fields agentur
acts on are declared; every other top-level field lands in `model_extra`, where
`parameters.check_extras` accepts, refuses or names it unrecognized (see the README table)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_MESSAGES = 1_000
MAX_TOOLS = 128
MAX_METADATA_KEYS = 16  # OpenAI's limit
MAX_STOP_SEQUENCES = 4


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ContentPart(Lenient):
    type: str
    text: str | None = None


class FunctionCallIn(Lenient):
    name: str
    arguments: str = "{}"


class ToolCallIn(Lenient):
    id: str
    type: Literal["function"] = "function"
    function: FunctionCallIn


class ChatMessageIn(Lenient):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None
    tool_calls: list[ToolCallIn] | None = None
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        """The text of the message; image and audio parts are not passed on."""
        if isinstance(self.content, list):
            return "".join(part.text or "" for part in self.content if part.type == "text")
        return self.content or ""


class FunctionIn(Lenient):
    name: str = Field(min_length=1, max_length=64)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class ToolIn(Lenient):
    type: Literal["function"]
    function: FunctionIn


class StreamOptions(Lenient):
    include_usage: bool = False


class JsonSchemaIn(Lenient):
    name: str = Field(default="response", min_length=1, max_length=64)
    schema_: dict[str, Any] = Field(default_factory=dict, alias="schema")
    strict: bool | None = None


class ResponseFormatIn(Lenient):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaIn | None = None


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[ToolIn] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    n: int | None = Field(default=None, ge=1, le=1)
    response_format: ResponseFormatIn | None = None
    top_p: float | None = Field(default=None, ge=0, le=1)
    stop: str | list[str] | None = None
    seed: int | None = None
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    store: bool | None = None
    metadata: dict[str, str] | None = Field(default=None, max_length=MAX_METADATA_KEYS)

    @field_validator("stop")
    @classmethod
    def _at_most_four(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list) and len(value) > MAX_STOP_SEQUENCES:
            raise ValueError(f"at most {MAX_STOP_SEQUENCES} stop sequences")
        return value

    @property
    def stop_sequences(self) -> tuple[str, ...]:
        if self.stop is None:
            return ()
        return (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)

    @property
    def structured(self) -> bool:
        """Whether the caller asks for JSON (`json_object` or `json_schema`)."""
        return self.response_format is not None and self.response_format.type != "text"

    @property
    def include_usage(self) -> bool:
        return self.stream_options is not None and self.stream_options.include_usage

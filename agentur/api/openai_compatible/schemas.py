"""The request body of `POST /chat/completions`, as OpenAI defines it (the fields agentur
uses; unknown fields such as `user` or `seed` are accepted and ignored, as clients send them)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_MESSAGES = 1_000
MAX_TOOLS = 128


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


class ChatCompletionRequest(Lenient):
    model: str = Field(min_length=1)
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[ToolIn] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: str | dict[str, Any] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    n: int = Field(default=1, ge=1, le=1)

    @property
    def include_usage(self) -> bool:
        return self.stream_options is not None and self.stream_options.include_usage

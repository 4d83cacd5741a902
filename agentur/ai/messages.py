"""Provider-neutral chat messages, tool definitions and tool calls."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    system = "system"
    user = "user"
    assistant = "assistant"
    tool = "tool"


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image in a user message. The gateway checks and scales it to the configured
    limits before a provider sees it; adapters only encode it."""

    data: bytes
    mime_type: str  # image/png, image/jpeg, image/gif or image/webp

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{self.base64()}"


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    # For role=tool: which call this result answers, and that tool's name.
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    # Changes from round to round (clock, retrieved context): prompt caches end before the
    # first such message, and adapters with explicit cache breakpoints put theirs there.
    volatile: bool = False
    # Images that go with a user message's text (vision models only; never neutralized).
    images: tuple[ImagePart, ...] = ()

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(Role.system, content)

    @classmethod
    def user(cls, content: str, images: tuple[ImagePart, ...] = ()) -> Message:
        return cls(Role.user, content, images=tuple(images))

    @classmethod
    def round_context(cls, content: str) -> Message:
        """Context that changes every round, sent as a user turn after the stable prefix
        (a second system message would be folded into the system prompt by Anthropic and
        Gemini, and rejected by some local chat templates)."""
        return cls(Role.user, content, volatile=True)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: tuple[ToolCall, ...] = ()) -> Message:
        return cls(Role.assistant, content, tool_calls=tuple(tool_calls))

    @classmethod
    def tool_result(cls, call: ToolCall, content: str, *, is_error: bool = False) -> Message:
        return cls(Role.tool, content, tool_call_id=call.id, tool_name=call.name, is_error=is_error)


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    # Both are part of `input_tokens`: read from the provider's prompt cache (cheaper), and
    # written to it (Anthropic bills writes above the input price).
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """What a `web_search` call asks of the search engine (engines without a knob ignore it)."""

    max_results: int | None = None
    recency_days: int | None = None  # only results published within this many days


@dataclass(frozen=True, slots=True)
class Source:
    """One search result or cited source, as the engine reported it."""

    url: str
    title: str = ""
    snippet: str = ""
    published: str | None = None  # as the engine gives it (ISO date, "3/1/2025", …)


@dataclass(frozen=True, slots=True)
class AudioInput:
    """Recorded speech for `speech_to_text`."""

    data: bytes
    file_name: str  # the wire formats want one (its suffix tells the container format)
    mime_type: str = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class SpeechOptions:
    language: str | None = None  # ISO 639-1 hint for speech_to_text
    voice: str | None = None  # text_to_speech
    format: str = "mp3"  # text_to_speech output: mp3, opus, aac, flac, wav, pcm


@dataclass(frozen=True, slots=True)
class ImageOptions:
    """What an `image_generate` call asks for (OpenAI images sizes)."""

    size: str = "1024x1024"  # 1024x1024, 1536x1024, 1024x1536 or auto
    quality: str = "auto"  # low, medium, high or auto


@dataclass(frozen=True, slots=True)
class JsonSchemaFormat:
    """Structured output as a caller of OpenAI's API names it: the schema with its name and
    whether the provider must follow it strictly (adapters without the notion use the schema)."""

    schema: dict[str, Any]
    name: str = "response"
    strict: bool | None = None


def response_schema(option: str | dict[str, Any] | JsonSchemaFormat) -> dict[str, Any] | None:
    """The JSON schema a `response_format` asks for, or None ("text", "json")."""
    if isinstance(option, JsonSchemaFormat):
        return option.schema
    return option if isinstance(option, dict) else None


@dataclass(frozen=True, slots=True)
class Sampling:
    """Sampling parameters beyond the temperature, set only by callers that ask for them (the
    OpenAI-compatible API). Each adapter sends those its wire format has and lists them in
    `SAMPLING_OPTIONS`; the API refuses the others before a call."""

    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None

    def given(self) -> frozenset[str]:
        """The names of the parameters this sets."""
        values = {
            "top_p": self.top_p,
            "stop": self.stop or None,
            "seed": self.seed,
            "presence_penalty": self.presence_penalty,
            "frequency_penalty": self.frequency_penalty,
        }
        return frozenset(name for name, value in values.items() if value is not None)


@dataclass(frozen=True, slots=True)
class CallOptions:
    temperature: float | None = None
    max_output_tokens: int | None = None
    # "text", "json", a JSON schema dict, or a named schema for structured output.
    response_format: str | dict[str, Any] | JsonSchemaFormat = "text"
    sampling: Sampling = field(default_factory=Sampling)
    # Explicit "provider:model" override; the selector is bypassed (restrictions still apply).
    model: str | None = None
    search: SearchOptions | None = None
    speech: SpeechOptions | None = None
    image: ImageOptions | None = None


@dataclass(frozen=True, slots=True)
class AiRequest:
    operation: Any  # OperationType; Any avoids an import cycle for callers' convenience
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    options: CallOptions = field(default_factory=CallOptions)
    workflow_id: str | None = None
    # `speech_to_text`: the recording. It cannot be neutralized; only the transcript can.
    audio: AudioInput | None = None


# The finish reason of a streamed reply the gateway stopped because it was looping.
REPETITION = "repetition"


@dataclass(frozen=True, slots=True)
class AiResponse:
    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    cost_chf: float
    model: str  # "provider:model"
    provider: str
    latency_ms: float
    # "stop", "tool_calls", "length", "content_filter", "error", REPETITION
    finish_reason: str
    # What the provider reported: the exact model that answered (e.g. a dated snapshot) and
    # its id of the response, for traces; None when the wire format has no such field.
    response_model: str | None = None
    response_id: str | None = None
    # Search engines (`web_search`): the results behind the text, for callers that cite them.
    sources: tuple[Source, ...] = ()
    # `text_to_speech`: the synthesized audio, in the requested format.
    audio: bytes | None = None
    # `image_generate`: the generated images.
    images: tuple[ImagePart, ...] = ()


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A tool call as it streams in; `arguments_delta` is a fragment of JSON text."""

    index: int
    id: str | None
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class StreamDone:
    response: AiResponse


StreamEvent = TextDelta | ToolCallDelta | StreamDone

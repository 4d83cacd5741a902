"""Which chat-completion parameters each kind of model honours: passed on, carried out by
agentur, or refused with a 400 that names the parameter — none is dropped silently. The
README's table "Parameters" states the same rules.

A parameter counts as set when its value changes something: `null` and OpenAI's defaults
(`n: 1`, `logprobs: false`, `parallel_tool_calls: true`, `response_format: {"type":
"text"}`, …) are accepted everywhere, since clients send them unasked."""

from __future__ import annotations

from typing import Any

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.api.openai_compatible.errors import OpenAIError
from agentur.api.openai_compatible.schemas import ChatCompletionRequest

# Identifiers for the caller's own bookkeeping; agentur knows the caller from the key and
# sends no end-user ids or cache keys to providers (it places its own cache breakpoints).
NOT_FORWARDED = frozenset({"user", "safety_identifier", "prompt_cache_key"})
# OpenAI features agentur does not carry out, with the values that ask for none of them.
NEUTRAL_VALUES: dict[str, tuple[Any, ...]] = {
    "logprobs": (None, False),
    "top_logprobs": (None, 0),
    "logit_bias": (None, {}),
    "modalities": (None, ["text"]),
    "audio": (None,),
    "prediction": (None,),
    "reasoning_effort": (None,),
    "verbosity": (None,),
    "service_tier": (None, "auto", "default"),
    "web_search_options": (None,),
    "functions": (None, []),
    "function_call": (None, "none"),
    "moderation": (None,),
    "prompt_cache_retention": (None,),
    "prompt_cache_options": (None,),
}
# The sampling parameters a gateway model's provider may carry (`NATIVE_PARAMETERS`).
SAMPLING = ("top_p", "stop", "seed", "presence_penalty", "frequency_penalty")


def refuse(parameter: str, why: str) -> OpenAIError:
    return OpenAIError(400, f"{parameter} {why}", param=parameter, code="unsupported_parameter")


def check_extras(body: ChatCompletionRequest) -> None:
    """Fields outside the declared ones: accepted, refused, or unrecognized (as OpenAI)."""
    for name, value in (body.model_extra or {}).items():
        if name in NOT_FORWARDED:
            continue
        if name not in NEUTRAL_VALUES:
            raise OpenAIError(400, f"Unrecognized request argument supplied: {name}", param=name)
        if value not in NEUTRAL_VALUES[name]:
            raise refuse(name, "is not supported by agentur's OpenAI-compatible API")


def _set(body: ChatCompletionRequest, *names: str) -> list[str]:
    """Those of `names` the body sets to something that matters."""
    values = {
        "tools": body.tools or None,
        "tool_choice": body.tool_choice if body.tool_choice not in (None, "auto") else None,
        "parallel_tool_calls": False if body.parallel_tool_calls is False else None,
        "response_format": body.response_format if body.structured else None,
        "stop": body.stop_sequences or None,
        "store": body.store or None,
        "metadata": body.metadata or None,
    }
    return [name for name in names if values.get(name, getattr(body, name, None)) is not None]


def check_gateway_model(
    body: ChatCompletionRequest, spec: ModelSpec, native: frozenset[str]
) -> None:
    """A gateway model: sampling and `response_format` only where its provider's wire format
    carries them (`native`), structured output only for models that have it."""
    check_extras(body)
    model = spec.id
    if _set(body, "parallel_tool_calls"):
        raise refuse("parallel_tool_calls", f"false cannot be guaranteed by {model}")
    if _set(body, "store"):
        raise refuse("store", "is only supported by agentur-agent (gateway calls are not stored)")
    if _set(body, "response_format"):
        kind = body.response_format.type  # type: ignore[union-attr]
        if not spec.supports(Capability.structured_output):
            raise refuse("response_format", f"{kind} is not supported by {model}")
        if "response_format" not in native:
            raise refuse(
                "response_format",
                f"{kind} is not supported by {model}: its provider ({spec.provider}) has no "
                "structured-output mode agentur can pass it to",
            )
    for name in _set(body, *SAMPLING):
        if name not in native:
            raise refuse(name, f"is not supported by {model} (its provider has no such setting)")


# What an agent run or an assistant turn decides for itself, so a caller may not set it.
RUN_DECIDES = (
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "max_tokens",
    "max_completion_tokens",
    *SAMPLING,
)
ASSISTANT_DECIDES = (*RUN_DECIDES, "temperature", "store")


def _refuse_set(body: ChatCompletionRequest, names: tuple[str, ...], why: str) -> None:
    check_extras(body)
    for name in _set(body, *names):
        raise refuse(name, why)


def check_agent(body: ChatCompletionRequest, model: str) -> None:
    """`agentur-agent`: the run has its own tools, rounds and output limits."""
    _refuse_set(body, RUN_DECIDES, f"is not supported by {model} (an agent run with its own tools)")


def check_assistant(body: ChatCompletionRequest, model: str) -> None:
    """`assistant:<id>`: the assistant's own configuration decides everything."""
    _refuse_set(
        body, ASSISTANT_DECIDES, f"is not supported by {model} (the assistant's settings apply)"
    )

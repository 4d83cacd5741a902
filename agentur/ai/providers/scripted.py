"""An offline, deterministic provider for tests and demos: it replies from a script.

A script is a list of turns; each turn is a `ScriptedTurn` or a function of the request that
returns one (to answer based on what the model was sent). The provider records every request
it received, so tests can assert what a model would have seen. With `prefix_cache` it reports
cached tokens the way providers with automatic prompt caching do: the part of the prompt that
repeats the start of the previous request (measured in the same ~4-characters-per-token
estimate as the input).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
)
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.base import OPTIONAL_PARAMETERS, ProviderError, model_reply

SCRIPTED = "scripted"
DEFAULT_MODEL = "scripted-model"
EMBEDDING_DIMENSIONS = 64


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    # Raise this instead of answering (to test retries and fallback).
    error: ProviderError | None = None

    @classmethod
    def call(cls, name: str, call_id: str | None = None, **arguments: object) -> ScriptedTurn:
        return cls(tool_calls=(ToolCall(call_id or f"call_{name}", name, dict(arguments)),))

    @classmethod
    def calls(cls, *calls: ToolCall) -> ScriptedTurn:
        return cls(tool_calls=tuple(calls))


Step = ScriptedTurn | Callable[[AiRequest], ScriptedTurn]


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4)) if text else 0


@dataclass
class ScriptedProvider:
    script: list[Step] = field(default_factory=list)
    name: str = SCRIPTED
    model_specs: Sequence[ModelSpec] = ()
    # When the script runs out: repeat this turn (None: raise).
    fallback: ScriptedTurn | None = ScriptedTurn(text="(script finished)")
    received: list[AiRequest] = field(default_factory=list)
    prefix_cache: bool = False
    _previous_prompt: str = ""
    # It sends nothing anywhere: every optional parameter "arrives" (tests read `received`).
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = OPTIONAL_PARAMETERS

    def models(self) -> list[ModelSpec]:
        return list(self.model_specs) or [
            ModelSpec(
                provider=self.name,
                name=DEFAULT_MODEL,
                capabilities=frozenset(Capability) - {Capability.embeddings},
                context_window=128_000,
                max_output_tokens=8_192,
                input_price_usd_per_mtok=0.0,
                output_price_usd_per_mtok=0.0,
            ),
            ModelSpec(
                provider=self.name,
                name="scripted-embedding",
                capabilities=frozenset({Capability.embeddings}),
                input_price_usd_per_mtok=0.0,
                output_price_usd_per_mtok=0.0,
                embedding_dimensions=EMBEDDING_DIMENSIONS,
            ),
        ]

    def _next_turn(self, request: AiRequest) -> ScriptedTurn:
        self.received.append(request)
        if self.script:
            step = self.script.pop(0)
            turn = step(request) if callable(step) else step
        elif self.fallback is not None:
            turn = self.fallback
        else:
            raise ProviderError("the script has no more turns", provider=self.name)
        if turn.error is not None:
            raise turn.error
        return turn

    def _response(self, model: ModelSpec, request: AiRequest, turn: ScriptedTurn, started: float):
        prompt = "".join(m.content for m in request.messages)
        output = turn.text + "".join(json.dumps(c.arguments) for c in turn.tool_calls)
        cached = 0
        if self.prefix_cache:
            shared = os.path.commonprefix([self._previous_prompt, prompt])
            cached, self._previous_prompt = len(shared) // 4, prompt
        usage = Usage(estimate_tokens(prompt), estimate_tokens(output), cached)
        return model_reply(self.name, model, started, turn.text, usage, tool_calls=turn.tool_calls)

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        started = time.perf_counter()
        return self._response(model, request, self._next_turn(request), started)

    # A script answers every kind of call with its next turn.
    search = speak = transcribe = generate_image = complete

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        turn = self._next_turn(request)
        words = turn.text.split(" ")
        for position, word in enumerate(words):
            if word or position:
                yield TextDelta(word if position == 0 else " " + word)
        for index, call in enumerate(turn.tool_calls):
            yield ToolCallDelta(index, call.id, call.name, json.dumps(call.arguments))
        yield StreamDone(self._response(model, request, turn, started))

    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        """Deterministic pseudo-embeddings from hashed character trigrams (similar text → near)."""
        vectors = []
        for text in texts:
            vector = [0.0] * (model.embedding_dimensions or EMBEDDING_DIMENSIONS)
            lowered = f"  {text.lower()}  "
            for i in range(len(lowered) - 2):
                bucket = int(hashlib.md5(lowered[i : i + 3].encode()).hexdigest(), 16)
                vector[bucket % len(vector)] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors, sum(estimate_tokens(t) for t in texts)

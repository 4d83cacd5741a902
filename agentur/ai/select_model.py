"""The model selector: which registered models can serve a request, best first.

Filters by what the operation needs (capabilities), prompt size against the context window,
the mandate's restrictions and price knowledge; ranks by the configured preference. An
explicit model override skips ranking but not restrictions."""

from __future__ import annotations

from dataclasses import dataclass

from agentur.ai.billing.pricing import worst_case_usd
from agentur.ai.gateway_errors import (
    ContextLengthExceededError,
    ModelNotAllowedError,
    NoModelError,
)
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import AiRequest
from agentur.ai.model_registry import ModelRegistry, RegisteredModel
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.settings import Ranking

CONFIGURE_HINT = (
    "configure AGENTUR_OPENAI_API_KEY, AGENTUR_ANTHROPIC_API_KEY, AGENTUR_GOOGLE_API_KEY, "
    "AGENTUR_MISTRAL_API_KEY or AGENTUR_OPENAI_COMPATIBLE_BASE_URL (with "
    "AGENTUR_OPENAI_COMPATIBLE_MODELS)"
)
# Operations served by a model that produces no chat text, and the capability each needs.
MEDIA_OPERATIONS = {
    OperationType.speech_to_text: Capability.speech_to_text,
    OperationType.text_to_speech: Capability.text_to_speech,
    OperationType.image_generate: Capability.image_generation,
}
# Soft rules: models with this capability are ranked first, the others stay as fallbacks.
PREFERRED = {
    OperationType.plan: Capability.reasoning,
    OperationType.data_extract: Capability.structured_output,
    OperationType.meeting_reply: Capability.structured_output,
}
# Output room a chat call needs beyond its prompt when the caller set no max_output_tokens.
MIN_OUTPUT_ROOM = 1_024


@dataclass(frozen=True, slots=True)
class Needs:
    capabilities: frozenset[Capability]
    chat: bool  # a model that produces text (not an embedding or search-only engine)
    prompt_tokens: int
    output_room: int
    label: str  # for error messages: "tools with a 40k-token prompt"


def _tokens_label(tokens: int) -> str:
    return f"{tokens // 1000}k" if tokens >= 10_000 else str(tokens)


def needs_of(request: AiRequest, prompt_tokens: int) -> Needs:
    operation = OperationType(request.operation)
    capabilities: set[Capability] = set()
    chat = True
    if operation is OperationType.embedding:
        capabilities.add(Capability.embeddings)
        chat = False
    elif operation is OperationType.web_search:
        capabilities.add(Capability.web_search)
        chat = False
    elif operation in MEDIA_OPERATIONS:
        capabilities.add(MEDIA_OPERATIONS[operation])
        chat = False
    elif operation in (OperationType.image_analyse, OperationType.neutralization_image):
        capabilities.add(Capability.vision)
    if any(m.images for m in request.messages):  # whatever the operation, a model must see them
        capabilities.add(Capability.vision)
    if request.tools:
        capabilities.add(Capability.tools)
    if request.options.response_format != "text":
        capabilities.add(Capability.structured_output)
    output_room = request.options.max_output_tokens or (MIN_OUTPUT_ROOM if chat else 0)
    names = sorted(c.value for c in capabilities) or [f"{operation.value} requests"]
    label = f"{' and '.join(names)} with a {_tokens_label(prompt_tokens)}-token prompt"
    return Needs(frozenset(capabilities), chat, prompt_tokens, output_room, label)


def _is_chat(spec: ModelSpec) -> bool:
    return spec.supports(Capability.streaming) or spec.supports(Capability.tools)


def can_serve(spec: ModelSpec, needs: Needs) -> bool:
    """What the model can do fits the request, whatever the prompt's size."""
    return spec.supports(*needs.capabilities) and (_is_chat(spec) or not needs.chat)


def has_room(spec: ModelSpec, needs: Needs) -> bool:
    room = min(needs.output_room, spec.max_output_tokens) if needs.chat else 0
    return needs.prompt_tokens + room <= spec.context_window


def fits(spec: ModelSpec, needs: Needs) -> bool:
    return can_serve(spec, needs) and has_room(spec, needs)


def check_prompt_size(registry: ModelRegistry, request: AiRequest, prompt_tokens: int) -> None:
    """Raises `ContextLengthExceededError` when the prompt fits no window of a model that
    could serve the request (the requested one, else any) — cheap, so the gateway asks it
    before neutralizing a prompt that cannot be sent anyway."""
    needs = needs_of(request, prompt_tokens)
    override = request.options.model
    entry = registry.get(override) if override else None
    specs = [entry.spec] if entry is not None else [e.spec for e in registry.entries()]
    serving = [spec for spec in specs if can_serve(spec, needs)]
    if not serving or any(has_room(spec, needs) for spec in serving):
        return
    largest = max(serving, key=lambda spec: spec.context_window)
    room = min(needs.output_room, largest.max_output_tokens) if needs.chat else 0
    which = "" if entry is not None else ", the largest of the models that could serve it"
    raise ContextLengthExceededError(
        f"the prompt has about {prompt_tokens} tokens; with {room} for the answer it exceeds "
        f"the context window of {largest.id} ({largest.context_window} tokens{which}); "
        "send a shorter prompt",
        prompt_tokens=prompt_tokens,
        context_window=largest.context_window,
    )


def _rank_key(entry: RegisteredModel, ranking: Ranking, needs: Needs) -> tuple[float, ...]:
    cost = worst_case_usd(entry.spec, needs.prompt_tokens, needs.output_room)
    if ranking is Ranking.cost:
        return (cost, -entry.quality, -entry.speed)
    if ranking is Ranking.speed:
        return (-entry.speed, -entry.quality, cost)
    return (-entry.quality, -entry.speed, cost)


def select_models(
    registry: ModelRegistry,
    request: AiRequest,
    config: MandateAiConfig,
    *,
    prompt_tokens: int,
    ranking: Ranking = Ranking.quality,
    default_model: str | None = None,
) -> list[ModelSpec]:
    """Candidates best first (the first is used, the rest are fallbacks). Raises
    `NoModelError` / `ModelNotAllowedError` with what is missing when nothing fits."""
    check_prompt_size(registry, request, prompt_tokens)
    needs = needs_of(request, prompt_tokens)
    override = request.options.model
    if override:
        entry = registry.get(override)
        if entry is None:
            active = ", ".join(sorted(s.id for s in registry.models())) or "none"
            raise NoModelError(f"model {override} is not configured (active models: {active})")
        _check_allowed(entry.spec, config)
        if not fits(entry.spec, needs):
            raise NoModelError(f"model {override} does not support {needs.label}")
        return [entry.spec]

    fitting = [e for e in registry.entries() if fits(e.spec, needs)]
    allowed = [e for e in fitting if config.allows(e.spec)]
    usable = [e for e in allowed if e.spec.is_priced or config.allow_unpriced]
    if not usable:
        raise _nothing_fits(needs, len(registry), len(fitting), len(allowed), allowed)
    usable.sort(key=lambda e: _rank_key(e, ranking, needs))
    preferred = PREFERRED.get(OperationType(request.operation))
    if preferred is not None:
        usable.sort(key=lambda e: not e.spec.supports(preferred))  # stable: rank kept within
    if default_model:
        usable.sort(key=lambda e: e.spec.id != default_model)  # stable: default first
    return [e.spec for e in usable]


def _check_allowed(spec: ModelSpec, config: MandateAiConfig) -> None:
    if not config.allows(spec):
        raise ModelNotAllowedError(
            f"model {spec.id} is not among the mandate's allowed providers or models"
        )
    if not spec.is_priced and not config.allow_unpriced:
        raise ModelNotAllowedError(
            f"model {spec.id} has no known price and the mandate does not allow unpriced "
            "models; set its price in AGENTUR_MODEL_PRICES or allow unpriced models"
        )


def _nothing_fits(
    needs: Needs, registered: int, fitting: int, allowed: int, allowed_entries: list
) -> Exception:
    if registered == 0:
        return NoModelError(
            f"no model is configured, so none supports {needs.label}; {CONFIGURE_HINT}"
        )
    if fitting == 0:
        return NoModelError(f"no configured model supports {needs.label}; {CONFIGURE_HINT}")
    if allowed == 0:
        return ModelNotAllowedError(
            f"{fitting} configured model(s) support {needs.label}, but the mandate's allowed "
            "providers/models exclude all of them"
        )
    names = ", ".join(sorted(e.spec.id for e in allowed_entries))
    return ModelNotAllowedError(
        f"the models supporting {needs.label} ({names}) have no known price and the mandate "
        "does not allow unpriced models; set prices in AGENTUR_MODEL_PRICES or allow unpriced "
        "models"
    )

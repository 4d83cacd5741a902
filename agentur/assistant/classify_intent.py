"""Intent classification. The model-free router runs first (it costs no model call): a FAQ,
flow or request for a person it matches above its calibrated direct threshold is answered,
started or offered the help desks at once, as pre-flight does, whatever a model would have
said. Below it one structured gateway call picks
the turn's action from the router's best candidates, each shown with its variants and a short
answer, and the model's `target` counts even when its action says otherwise (a model that
names the right FAQ but says "search_knowledge" gets the FAQ). When no model is configured or
the call fails, the router decides.

`basic_reply` answers without sources, so it is kept to greetings and small talk: when the model
picks it for anything else, a FAQ or flow the author's keywords name is answered, else the
message goes to knowledge search. Similarity matches below the direct threshold do not override
it: such matches were seen pairing questions about a document fact with a wrong FAQ.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.embedding_router import Embedder
from agentur.assistant.keyword_router import Scored
from agentur.assistant.model_json import StructuredOutputError, call_structured
from agentur.assistant.route_message import RouteResult, candidates_of, route_message
from agentur.context import RequestContext
from agentur.errors import AgenturError

logger = logging.getLogger(__name__)
SMALL_TALK_WORDS = 2

Action = Literal["faq", "flow", "escalate", "search_knowledge", "basic_reply"]
ROUTER_ACTIONS: dict[str, Action] = {
    "faq": "faq",
    "flow": "flow",
    "person": "escalate",
    "greeting": "basic_reply",
    "out_of_scope": "search_knowledge",
}


class IntentAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Action
    target: str | None = Field(description="FAQ id, flow id or help desk id; null otherwise")
    confidence: float = Field(ge=0.0, le=1.0)


@dataclass(frozen=True, slots=True)
class Routing:
    """How the model-free router decides (the assistant settings of the same names)."""

    embedder: Embedder | None
    threshold: float
    similarity_threshold: float
    similarity_floor: float
    out_of_scope_rate: float
    direct_rate: float


@dataclass(frozen=True, slots=True)
class Intent:
    action: Action
    target: str | None
    confidence: float
    via: str  # "model", "router:keyword", "router:similarity", …
    fallback_reason: str | None = None


SYSTEM = """Classify a website visitor's message for the assistant "{name}".
Pick one action: "faq" (target = FAQ id) when one of the FAQs below answers the message, \
"flow" (target = flow id) when the visitor wants what a flow does, "escalate" (target = help \
desk id or null) when they ask for a person, "basic_reply" for greetings and small talk only, \
else "search_knowledge" (target null: the assistant's documents are searched). Answer as JSON.
Closest FAQs and flows, best first:
{candidates}
Help desks: {desks}"""
# Candidates the classification prompt shows, and how much of each.
CANDIDATES_SHOWN = 6
VARIANTS_SHOWN = 4
ANSWER_CHARS = 160


def short(text: str, limit: int = ANSWER_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + " …"


def candidates_prompt(definition: AssistantDefinition, ranked: tuple[Scored, ...]) -> str:
    """One JSON line per FAQ or flow among the router's best, in its order: the id, the
    question or name, the variants or trigger examples and (FAQs) the start of the answer."""
    lines: list[str] = []
    for item in ranked:
        candidate = item.candidate
        if candidate.kind == "faq" and (faq := definition.faq(candidate.target)):
            entry: dict[str, object] = {
                "faq": faq.id,
                "question": faq.question,
                "variants": faq.variants[:VARIANTS_SHOWN],
                "answer": short(faq.answer),
            }
        elif candidate.kind == "flow" and (flow := definition.flow(candidate.target)):
            entry = {"flow": flow.id, "name": flow.name, "examples": flow.trigger_examples[:5]}
        else:
            continue
        lines.append(json.dumps(entry, ensure_ascii=False))
        if len(lines) == CANDIDATES_SHOWN:
            break
    return "\n".join(lines) or "(none)"


async def classify_with_model(
    ai: AiService,
    context: RequestContext,
    definition: AssistantDefinition,
    message: str,
    ranked: tuple[Scored, ...],
) -> Intent:
    system = SYSTEM.format(
        name=definition.name,
        candidates=candidates_prompt(definition, ranked),
        desks=json.dumps([{"id": d.id, "name": d.name} for d in definition.help_desks]),
    )
    answer = await call_structured(ai, context, system=system, user=message, schema=IntentAnswer)
    action, target = answer.action, answer.target
    faq = definition.faq(target) if target else None
    flow = definition.flow(target) if target else None
    if action == "faq" and faq is None:
        raise StructuredOutputError(f"classification named unknown FAQ {target!r}")
    if action == "flow" and flow is None:
        raise StructuredOutputError(f"classification named unknown flow {target!r}")
    if action in ("search_knowledge", "basic_reply") and (faq or flow):
        action = "faq" if faq else "flow"  # the model named the answer: its target counts
    if action == "flow" and flow is not None:
        target = flow.id  # the model may have used the name
    return Intent(action, target, answer.confidence, "model")


async def classify_with_router(
    definition: AssistantDefinition, message: str, routing: Routing
) -> tuple[Intent, RouteResult]:
    routed = await route_message(
        message,
        candidates_of(definition),
        embedder=routing.embedder,
        threshold=routing.threshold,
        similarity_threshold=routing.similarity_threshold,
        similarity_floor=routing.similarity_floor,
        out_of_scope_rate=routing.out_of_scope_rate,
        direct_rate=routing.direct_rate,
    )
    action = ROUTER_ACTIONS[routed.kind]
    if action == "basic_reply" and not is_small_talk(message):
        action = "search_knowledge"  # "Hello, when are you open?" is a question
    via = f"router:{routed.via or 'none'}" + (":direct" if routed.direct else "")
    return Intent(action, routed.target, round(routed.score, 4), via), routed


def is_small_talk(message: str) -> bool:
    """A greeting or thanks without a question beyond a few words ("How are you?")."""
    return "?" not in message or len(message.split()) <= SMALL_TALK_WORDS


async def classify_intent(
    ai: AiService | None,
    context: RequestContext,
    definition: AssistantDefinition,
    message: str,
    routing: Routing,
) -> Intent:
    routed, route = await classify_with_router(definition, message, routing)
    if route.direct and routed.action in ("faq", "flow", "escalate"):
        return routed  # sure enough: no model call, and no model can misroute it
    if ai is None:
        return replace(routed, fallback_reason="no model configured")
    try:
        model = await classify_with_model(ai, context, definition, message, route.ranked)
    except (AgenturError, ProviderError, StructuredOutputError) as error:
        reason = f"classification failed: {getattr(error, 'detail', None) or error}"
        logger.info("intent classification fell back to the router: %s", reason)
        return replace(routed, fallback_reason=reason)
    if model.action != "basic_reply" or routed.action == "basic_reply":
        return model  # for basic_reply: the router agrees, a greeting or thanks
    # Small talk answers without sources. A FAQ or flow the author's keywords name wins;
    # anything else is searched in the documents (a similarity match here is below the
    # direct threshold, so not trusted).
    if routed.action in ("faq", "flow") and route.via == "keyword":
        return replace(routed, via=f"model-overridden:{routed.via}")
    return Intent(
        "search_knowledge",
        None,
        model.confidence,
        f"model-overridden:{routed.via}",
        "the model chose basic_reply, which answers without sources",
    )

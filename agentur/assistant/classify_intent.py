"""Intent classification: one structured gateway call picks the turn's action; when no model is
configured or the call fails in any way, the model-free router decides (S8).

`basic_reply` answers without sources, so it is kept to greetings and small talk (issue 12):
when the model picks it, the model-free router decides instead — a FAQ or flow it matches
wins, anything else but a greeting becomes a knowledge search. A weak model that calls
"When are you open on Saturday?" small talk can then no longer invent the opening hours.
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
from agentur.assistant.model_json import StructuredOutputError, call_structured
from agentur.assistant.route_message import candidates_of, route_message
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
class Intent:
    action: Action
    target: str | None
    confidence: float
    via: str  # "model", "router:keyword", "router:similarity", …
    fallback_reason: str | None = None


SYSTEM = """Classify a website visitor's message for the assistant "{name}".
Pick one action: "faq" (target = FAQ id) when a FAQ answers it, "flow" (target = flow id) when
the visitor wants what a flow does, "escalate" (target = help desk id or null) when they ask
for a person, "basic_reply" for small talk, else "search_knowledge". Answer as JSON.
FAQs: {faqs}
Flows: {flows}
Help desks: {desks}"""


async def classify_with_model(
    ai: AiService, context: RequestContext, definition: AssistantDefinition, message: str
) -> Intent:
    system = SYSTEM.format(
        name=definition.name,
        faqs=json.dumps([{"id": f.id, "question": f.question} for f in definition.faqs]),
        flows=json.dumps(
            [
                {"id": f.id, "name": f.name, "examples": f.trigger_examples[:5]}
                for f in definition.flows
            ]
        ),
        desks=json.dumps([{"id": d.id, "name": d.name} for d in definition.help_desks]),
    )
    answer = await call_structured(ai, context, system=system, user=message, schema=IntentAnswer)
    target = answer.target
    if answer.action == "faq":
        faq = definition.faq(target or "")
        if faq is None:
            raise StructuredOutputError(f"classification named unknown FAQ {target!r}")
    elif answer.action == "flow":
        flow = definition.flow(target or "")
        if flow is None:
            raise StructuredOutputError(f"classification named unknown flow {target!r}")
        target = flow.id  # the model may have used the name
    return Intent(answer.action, target, answer.confidence, "model")


async def classify_with_router(
    definition: AssistantDefinition,
    message: str,
    *,
    embedder: Embedder | None,
    threshold: float,
    similarity_threshold: float,
    similarity_floor: float,
    out_of_scope_rate: float,
    reason: str | None = None,
) -> Intent:
    routed = await route_message(
        message,
        candidates_of(definition),
        embedder=embedder,
        threshold=threshold,
        similarity_threshold=similarity_threshold,
        similarity_floor=similarity_floor,
        out_of_scope_rate=out_of_scope_rate,
    )
    action = ROUTER_ACTIONS[routed.kind]
    if action == "basic_reply" and not is_small_talk(message):
        action = "search_knowledge"  # "Hello, when are you open?" is a question
    return Intent(
        action, routed.target, round(routed.score, 4), f"router:{routed.via or 'none'}", reason
    )


def is_small_talk(message: str) -> bool:
    """A greeting or thanks without a question beyond a few words ("How are you?")."""
    return "?" not in message or len(message.split()) <= SMALL_TALK_WORDS


async def classify_intent(
    ai: AiService | None,
    context: RequestContext,
    definition: AssistantDefinition,
    message: str,
    *,
    embedder: Embedder | None,
    threshold: float,
    similarity_threshold: float,
    similarity_floor: float,
    out_of_scope_rate: float,
) -> Intent:
    reason = "no model configured"
    model: Intent | None = None
    if ai is not None:
        try:
            model = await classify_with_model(ai, context, definition, message)
        except (AgenturError, ProviderError, StructuredOutputError) as error:
            reason = f"classification failed: {getattr(error, 'detail', None) or error}"
            logger.info("intent classification fell back to the router: %s", reason)
        else:
            if model.action != "basic_reply":
                return model
            reason = "the model chose basic_reply, which answers without sources"
    routed = await classify_with_router(
        definition,
        message,
        embedder=embedder,
        threshold=threshold,
        similarity_threshold=similarity_threshold,
        similarity_floor=similarity_floor,
        out_of_scope_rate=out_of_scope_rate,
        reason=reason,
    )
    if model is None:
        return routed
    if routed.action == "basic_reply":
        return model  # the router agrees: a greeting or thanks
    return replace(routed, via=f"model-overridden:{routed.via}")

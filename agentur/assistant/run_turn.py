"""One visitor turn: language → (running flow | optional pre-flight → intent) → one action.

Yields `TurnEvent`s as they happen and ends with `final` (decision path, answer, language).
Storage-free: the caller persists the conversation state and hands in a decision logger.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.answer_faq import answer_faq
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.assistant_tools import AssistantContext
from agentur.assistant.basic_reply import basic_reply
from agentur.assistant.classify_intent import Action, Intent, Routing, classify_intent
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.embedding_router import Embedder
from agentur.assistant.escalation_menu import escalation_menu
from agentur.assistant.events import TurnEvent, thinking
from agentur.assistant.knowledge_port import KnowledgeSearch
from agentur.assistant.model_json import StructuredOutputError
from agentur.assistant.phrases import preflight_low_sentence
from agentur.assistant.preflight import PreflightDecision, run_preflight
from agentur.assistant.run_flow import FlowOutcome, FlowRunner
from agentur.assistant.search_knowledge import KnowledgeResult, KnowledgeTurn, search_knowledge
from agentur.assistant.settings import AssistantSettings
from agentur.assistant.simplified_thinking import simplified
from agentur.context import RequestContext
from agentur.detect_language import detect_language
from agentur.errors import AgenturError

logger = logging.getLogger(__name__)
DecisionLogger = Callable[[PreflightDecision | None, str, bool], Awaitable[None]]


@dataclass
class TurnDeps:
    ai: AiService | None
    settings: AssistantSettings
    knowledge: KnowledgeSearch
    tool_context: AssistantContext
    now: datetime
    api: AssistantApi | None = None
    embedder: Embedder | None = None
    log_decision: DecisionLogger | None = None


@dataclass
class TurnRecord:
    path: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    # The thinking panel's events, kept so the turn's record holds them too.
    thinking: list[dict[str, Any]] = field(default_factory=list)

    def keep(self, event: TurnEvent) -> TurnEvent:
        if event.type == "thinking":
            self.thinking.append(event.data)
        elif event.type == "sources":
            self.sources += event.data["sources"]
        elif event.type == "action":
            self.actions.append(event.data)
        return event


async def run_turn(
    definition: AssistantDefinition,
    state: dict[str, Any],
    message: str,
    deps: TurnDeps,
    context: RequestContext,
) -> AsyncIterator[TurnEvent]:
    # Off the event loop: lingua loads its language models on first use (about a second).
    language = await asyncio.to_thread(
        detect_language,
        message,
        definition.languages,
        state.get("language") or definition.languages[0],
    )
    state["language"] = language
    turn = _Turn(definition, state, message, deps, context, language)
    turn.record.path.append(f"language:{language}")
    async for event in turn.decide_and_act():
        yield turn.record.keep(event)
    yield TurnEvent(
        "final",
        {
            "decision_path": turn.record.path,
            "answer": "".join(turn.record.texts),
            "language": language,
            "sources": turn.record.sources,
            "actions": turn.record.actions,
            "thinking": turn.record.thinking,
        },
    )


PREFLIGHT_ACTIONS: dict[str, Action] = {"flow": "flow", "faq": "faq", "person": "escalate"}


@dataclass
class _Turn:
    definition: AssistantDefinition
    state: dict[str, Any]
    message: str
    deps: TurnDeps
    context: RequestContext
    language: str
    record: TurnRecord = field(default_factory=TurnRecord)

    @property
    def runner(self) -> FlowRunner:
        return FlowRunner(
            self.definition,
            self.deps.api,
            self.language,
            self.deps.now,
            email_available=self.deps.settings.email_available,
        )

    async def decide_and_act(self) -> AsyncIterator[TurnEvent]:
        if "flow" in self.state:
            # A running flow owns the conversation until it ends (no pre-flight, no model).
            self.record.path.append(f"flow:{self.state['flow']['id']}:continue")
            for event in self._flow(await self.runner.resume(self.state, self.message)):
                yield event
            return
        mode = self.deps.settings.preflight_mode
        if mode != "off":
            decision = await self._preflight(mode)
            if mode == "routing" and decision is not None and decision.action != "none":
                intent = Intent(
                    PREFLIGHT_ACTIONS[decision.action], decision.target, 1.0, "preflight"
                )
                async for event in self._act(intent):
                    yield event
                return
            if mode == "routing":
                # Below every threshold (or no answer): a fixed sentence, never a flow's name.
                names = [name for f in self.definition.flows for name in (f.name, f.id)]
                yield thinking(preflight_low_sentence(self.language, names), "preflight")
        yield await simplified("classify", self.language)
        settings = self.deps.settings
        routing = Routing(
            embedder=self.deps.embedder,
            threshold=settings.assistant_router_threshold,
            similarity_threshold=settings.assistant_similarity_threshold,
            similarity_floor=settings.assistant_similarity_floor,
            out_of_scope_rate=settings.assistant_router_out_of_scope_rate,
            direct_rate=settings.assistant_router_direct_rate,
        )
        intent = await classify_intent(
            self.deps.ai, self.context, self.definition, self.message, routing
        )
        self.record.path.append(f"classify:{intent.via}")
        async for event in self._act(intent):
            yield event

    async def _preflight(self, mode: str) -> PreflightDecision | None:
        decision: PreflightDecision | None = None
        if self.deps.ai is None:
            self.record.path.append(f"preflight:{mode}:unavailable")
        else:
            try:
                decision = await run_preflight(
                    self.deps.ai, self.context, self.definition, self.message
                )
            except (AgenturError, ProviderError, StructuredOutputError) as error:
                logger.info("pre-flight failed, the turn runs without it: %s", error)
                self.record.path.append(f"preflight:{mode}:failed")
        acted = decision is not None and mode == "routing" and decision.action != "none"
        if decision is not None:
            suffix = "" if acted else ":not-acted"
            self.record.path.append(f"preflight:{mode}:{decision.label}{suffix}")
        if self.deps.log_decision:
            await self.deps.log_decision(decision, mode, acted)
        return decision

    def _flow(self, outcome: FlowOutcome) -> list[TurnEvent]:
        self.record.texts.append("\n".join(outcome.texts))
        return outcome.events

    def _fixed(self, events: list[TurnEvent], text: str) -> list[TurnEvent]:
        self.record.texts.append(text)
        return events

    async def _act(self, intent: Intent) -> AsyncIterator[TurnEvent]:
        definition, record = self.definition, self.record
        if intent.action == "faq" and (faq := definition.faq(intent.target or "")):
            record.path.append(f"faq:{faq.id}")
            answer = answer_faq(faq, self.language, definition.languages[0])
            for event in self._fixed(*answer):
                yield event
        elif intent.action == "flow" and (flow := definition.flow(intent.target or "")):
            record.path.append(f"flow:{flow.id}:start")
            for event in self._flow(await self.runner.start(flow, self.state)):
                yield event
        elif intent.action == "escalate":
            record.path.append("escalation_menu")
            menu = escalation_menu(
                definition,
                intent.target,
                self.language,
                self.deps.now,
                email_available=self.deps.settings.email_available,
            )
            for event in self._fixed(*menu):
                yield event
        elif intent.action == "basic_reply":
            record.path.append("basic_reply")
            async for event in basic_reply(
                self.deps.ai,
                self.context,
                definition.instructions,
                self.message,
                self.language,
                record.texts,
            ):
                yield event
        else:
            async for event in self._search_knowledge():
                yield event

    async def _search_knowledge(self) -> AsyncIterator[TurnEvent]:
        settings = self.deps.settings
        result = KnowledgeResult()
        knowledge_turn = KnowledgeTurn(
            ai=self.deps.ai,
            context=self.context,
            tool_context=self.deps.tool_context,
            instructions=self.definition.instructions,
            message=self.message,
            language=self.language,
            knowledge=self.deps.knowledge,
            api=self.deps.api,
            max_steps=settings.assistant_max_knowledge_steps,
            extractive_count=settings.assistant_extractive_passages,
            prompt_passages=settings.assistant_knowledge_passages,
            max_output_tokens=settings.assistant_max_answer_tokens,
            rewrite_thinking=settings.assistant_simplify_thinking_with_model,
        )
        async for event in search_knowledge(knowledge_turn, result):
            yield event
        self.record.path.append(f"search_knowledge:{result.mode}")
        self.record.texts.append(result.text)

"""Helpers to run turns of the pipeline directly (no HTTP) with a scripted or absent model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.embedding_router import GatewayEmbedder
from agentur.assistant.events import TurnEvent
from agentur.assistant.knowledge_port import Passage, SourceWindow
from agentur.assistant.preflight import PreflightDecision
from agentur.assistant.run_turn import TurnDeps, run_turn
from agentur.assistant.settings import AssistantSettings
from agentur.context import RequestContext, Role
from agentur.tools.tool import ToolContext
from tests.assistant.definitions import shop_definition

CONTEXT = RequestContext(user_id="u" * 36, mandate_id="m" * 36, role=Role.viewer)
# A Monday 10:00 in Zurich: the phone option is open.
MONDAY_MORNING = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
DOCUMENT = (
    "Parcels within Switzerland arrive in two working days. International parcels take five "
    "to eight working days."
)


class MemoryKnowledge:
    """A one-document KnowledgeSearch: enough to drive the loop and the extractive answer."""

    def __init__(self, text: str = DOCUMENT) -> None:
        self.text = text
        self.queries: list[str] = []

    async def search(self, query: str, limit: int) -> list[Passage]:
        self.queries.append(query)
        if "parcel" not in query.lower() and "deliver" not in query.lower():
            return []
        return [
            Passage(
                "doc-1", self.text, "shipping.md", ("Delivery times",), 2, 0, len(self.text), 1.0
            )
        ]

    async def read_window(self, source_id: str, offset: int, limit: int) -> SourceWindow:
        return SourceWindow(
            source_id,
            "shipping.md",
            self.text[offset : offset + limit],
            offset,
            limit,
            len(self.text),
        )


def intent(action: str, target: str | None = None, confidence: float = 0.9) -> ScriptedTurn:
    return ScriptedTurn(
        text=json.dumps({"action": action, "target": target, "confidence": confidence})
    )


def preflight(
    *,
    flow: str | None = None,
    flow_c: float = 0.0,
    faq: str | None = None,
    faq_c: float = 0.0,
    person: bool = False,
    person_c: float = 0.0,
    desk: str | None = None,
    language: str = "en",
) -> ScriptedTurn:
    answers = {
        "flow": {"value": flow, "confidence": flow_c},
        "faq": {"value": faq, "confidence": faq_c},
        "person_request": {"value": person, "confidence": person_c},
        "help_desk": {"value": desk, "confidence": 0.9 if desk else 0.0},
        "reasoning_level": {"value": "low", "confidence": 0.9},
        "frustration_level": {"value": "low", "confidence": 0.9},
        "language": {"value": language, "confidence": 0.9},
    }
    return ScriptedTurn(text=json.dumps(answers))


@dataclass
class Turn:
    events: list[TurnEvent]
    decisions: list[tuple[str, str, bool]] = field(default_factory=list)

    @property
    def final(self) -> dict[str, Any]:
        return self.events[-1].data

    @property
    def path(self) -> list[str]:
        return self.final["decision_path"]

    @property
    def thinking(self) -> list[str]:
        return [e.data["text"] for e in self.events if e.type == "thinking"]


def scripted_ai(*turns: ScriptedTurn) -> tuple[AiService, ScriptedProvider]:
    provider = ScriptedProvider(list(turns), fallback=None)
    return AiService([provider], settings=AiSettings()), provider


async def turn(
    message: str,
    *,
    ai: AiService | None,
    state: dict[str, Any] | None = None,
    settings: AssistantSettings | None = None,
    definition: AssistantDefinition | None = None,
    knowledge: MemoryKnowledge | None = None,
) -> Turn:
    definition = definition or AssistantDefinition.model_validate(shop_definition())
    decisions: list[tuple[str, str, bool]] = []

    async def log(decision: PreflightDecision | None, mode: str, acted: bool) -> None:
        decisions.append((decision.label if decision else "unavailable", mode, acted))

    deps = TurnDeps(
        ai=ai,
        settings=settings or AssistantSettings(),
        knowledge=knowledge or MemoryKnowledge(),
        tool_context=ToolContext(request=CONTEXT, runtime=None),  # type: ignore[arg-type]
        now=MONDAY_MORNING,
        embedder=GatewayEmbedder(ai, CONTEXT) if ai else None,
        log_decision=log,
    )
    events = [
        e
        async for e in run_turn(
            definition, state if state is not None else {}, message, deps, CONTEXT
        )
    ]
    return Turn(events, decisions)

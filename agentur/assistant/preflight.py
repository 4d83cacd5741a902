"""Pre-flight: one gateway call answers seven fixed questions, each with a confidence;
the answers are validated against a schema and turned into at most one action by thresholds.

Priority when several clear their threshold: a person request (the visitor asked for a human;
never make them go through a flow first), then a flow, then a FAQ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentur.ai.service import AiService
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.model_json import call_structured
from agentur.context import RequestContext

Level = Literal["low", "medium", "high"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    confidence: float = Field(ge=0.0, le=1.0)


class IdAnswer(_Answer):
    value: str | None = Field(description="An id from the lists given, or null")


class YesNoAnswer(_Answer):
    value: bool


class LevelAnswer(_Answer):
    value: Level


class LanguageAnswer(_Answer):
    value: str = Field(pattern=r"^[a-z]{2}$")


class PreflightAnswers(BaseModel):
    """The seven questions. The JSON schema of this model is the call's structured output."""

    model_config = ConfigDict(extra="forbid")
    flow: IdAnswer
    faq: IdAnswer
    person_request: YesNoAnswer
    help_desk: IdAnswer
    reasoning_level: LevelAnswer
    frustration_level: LevelAnswer
    language: LanguageAnswer


@dataclass(frozen=True, slots=True)
class PreflightDecision:
    action: Literal["flow", "faq", "person", "none"]
    target: str | None
    answers: PreflightAnswers

    @property
    def label(self) -> str:
        """Stable text for the decision log, replays and label files: `flow:<id>`, `none`…"""
        return self.action if self.target is None else f"{self.action}:{self.target}"


SYSTEM = """You route one visitor message for a website assistant before anything else runs.
Answer all seven questions as JSON matching the schema, each with a confidence from 0 to 1:
flow (id of the flow the message wants started, or null), faq (id of the FAQ that answers it,
or null), person_request (does the visitor ask for a human?), help_desk (id of the best help
desk, or null), reasoning_level and frustration_level (low/medium/high), language (ISO 639-1).
Use only ids from the lists below.

Flows:
{flows}

FAQs:
{faqs}

Help desks:
{desks}
"""


def _prompt(definition: AssistantDefinition) -> str:
    def lines(items: list[dict[str, object]]) -> str:
        return "\n".join(json.dumps(item, ensure_ascii=False) for item in items) or "(none)"

    return SYSTEM.format(
        flows=lines(
            [
                {"id": f.id, "name": f.name, "examples": f.trigger_examples[:5]}
                for f in definition.flows
            ]
        ),
        faqs=lines([{"id": f.id, "question": f.question} for f in definition.faqs]),
        desks=lines(
            [
                {"id": d.id, "name": d.name, "description": d.description}
                for d in definition.help_desks
            ]
        ),
    )


def decide(answers: PreflightAnswers, definition: AssistantDefinition) -> PreflightDecision:
    limits = definition.preflight_thresholds
    if answers.person_request.value and answers.person_request.confidence >= limits.person_request:
        desk = None
        if answers.help_desk.confidence >= limits.help_desk:
            desk = (
                definition.help_desk(answers.help_desk.value) if answers.help_desk.value else None
            )
        desk = desk or definition.help_desk(None)
        return PreflightDecision("person", desk.id if desk else None, answers)
    flow = definition.flow(answers.flow.value) if answers.flow.value else None
    if flow and answers.flow.confidence >= limits.flow:
        return PreflightDecision("flow", flow.id, answers)
    faq = definition.faq(answers.faq.value) if answers.faq.value else None
    if faq and answers.faq.confidence >= limits.faq:
        return PreflightDecision("faq", faq.id, answers)
    return PreflightDecision("none", None, answers)


async def run_preflight(
    ai: AiService, context: RequestContext, definition: AssistantDefinition, message: str
) -> PreflightDecision:
    """Raises AgenturError / ProviderError / StructuredOutputError when it cannot decide."""
    answers = await call_structured(
        ai, context, system=_prompt(definition), user=message, schema=PreflightAnswers
    )
    return decide(answers, definition)

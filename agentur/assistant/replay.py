"""Replay: a labelled message set through the pre-flight; decisions are stored, compared
with the previous replay and with the labels, and any changed decision raises an alert."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.alerts import raise_alert
from agentur.assistant.assistant_service import parse_definition
from agentur.assistant.conversation_store import ConversationStore
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.model_json import StructuredOutputError
from agentur.assistant.preflight import run_preflight
from agentur.assistant.settings import AssistantSettings
from agentur.context import RequestContext, Role
from agentur.errors import AgenturError, InvalidInputError
from agentur.storage.models.assistant import Assistant


class Label(BaseModel):
    text: str = Field(min_length=1)
    # Expected decision label: "faq:<id>", "flow:<id>", "person:<desk id>" or "none".
    expected: str | None = None


def read_labels(path: Path) -> list[Label]:
    labels = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            labels.append(Label.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            raise InvalidInputError(f"{path.name} line {number}: {error}") from error
    if not labels:
        raise InvalidInputError(f"{path.name} has no labelled messages")
    return labels


@dataclass(frozen=True, slots=True)
class ReplayRow:
    text: str
    decision: str
    previous: str | None
    expected: str | None

    @property
    def changed(self) -> bool:
        return self.previous is not None and self.previous != self.decision

    @property
    def mismatched(self) -> bool:
        return self.expected is not None and self.expected != self.decision


@dataclass(frozen=True, slots=True)
class ReplayReport:
    assistant_id: str
    replay_id: str
    rows: list[ReplayRow]
    alert: dict[str, str] | None = None

    @property
    def changed(self) -> int:
        return sum(row.changed for row in self.rows)

    @property
    def mismatched(self) -> int:
        return sum(row.mismatched for row in self.rows)

    def table(self) -> str:
        lines = [f"{'message':<40}  {'decision':<22}  {'previous':<22}  {'label':<22}  status"]
        for row in self.rows:
            status = "CHANGED" if row.changed else ("MISMATCH" if row.mismatched else "ok")
            text = row.text if len(row.text) <= 40 else row.text[:37] + "..."
            lines.append(
                f"{text:<40}  {row.decision:<22}  {row.previous or '-':<22}  "
                f"{row.expected or '-':<22}  {status}"
            )
        lines.append(
            f"{len(self.rows)} messages, {self.changed} changed since the previous replay, "
            f"{self.mismatched} differ from their label"
        )
        return "\n".join(lines)


async def _decide(
    ai: AiService, context: RequestContext, definition: AssistantDefinition, text: str
) -> tuple[str, dict[str, Any] | None]:
    try:
        decision = await run_preflight(ai, context, definition, text)
    except (AgenturError, ProviderError, StructuredOutputError) as error:
        # A failure is a decision too: it changes what visitors get, so it must alert.
        return f"error:{type(error).__name__}", None
    return decision.label, decision.answers.model_dump()


async def run_replay(
    session: AsyncSession,
    ai: AiService,
    assistant: Assistant,
    labels: list[Label],
    settings: AssistantSettings,
) -> ReplayReport:
    definition = parse_definition(assistant.definition)
    context = RequestContext(
        user_id=assistant.id, mandate_id=assistant.mandate_id, role=Role.viewer
    )
    store = ConversationStore(session, assistant.mandate_id, assistant.id)
    previous_replay = await store.latest_replay()
    previous = {
        r["text"]: r["decision"] for r in (previous_replay.results if previous_replay else [])
    }
    rows, answers = [], []
    for label in labels:
        decision, detail = await _decide(ai, context, definition, label.text)
        rows.append(ReplayRow(label.text, decision, previous.get(label.text), label.expected))
        answers.append(detail)
    results = [
        {"text": r.text, "decision": r.decision, "previous": r.previous, "expected": r.expected}
        for r in rows
    ]
    replay = await store.save_replay(
        results, sum(r.changed for r in rows), sum(r.mismatched for r in rows)
    )
    for row, detail in zip(rows, answers, strict=True):
        await store.log_decision(
            mode="replay",
            message=row.text,
            decision=row.decision,
            answers=detail,
            acted=False,
            replay_id=replay.id,
        )
    report = ReplayReport(assistant.id, replay.id, rows)
    if report.changed:
        subject = f"Pre-flight decisions changed for assistant {assistant.name} ({assistant.id})"
        changed = [r for r in rows if r.changed]
        payload = {
            "assistant_id": assistant.id,
            "replay_id": replay.id,
            "changed": [
                {"text": r.text, "before": r.previous, "after": r.decision} for r in changed
            ],
        }
        alert = await raise_alert(settings, subject, report.table(), payload)
        report = ReplayReport(assistant.id, replay.id, rows, alert)
    return report

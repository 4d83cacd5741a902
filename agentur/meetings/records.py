"""Plain records of the meeting assistant (dataclasses inside, pydantic only at the API)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from agentur.context import RequestContext, Role


class DirectiveKind(StrEnum):
    one_shot = "one_shot"  # runs the agent once, directly
    persistent = "persistent"  # stands in every fast-path prompt until withdrawn


@dataclass(frozen=True, slots=True)
class Utterance:
    speaker: str
    text: str
    at: datetime | None = None

    def line(self) -> str:
        stamp = f"{self.at:%H:%M:%S} " if self.at else ""
        return f"{stamp}[{self.speaker}] {self.text}"


@dataclass(frozen=True, slots=True)
class Directive:
    id: str
    kind: DirectiveKind
    text: str
    author_id: str
    created_at: datetime
    withdrawn_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class MeetingOptions:
    """What the creator chose; stored as the session row's `settings`."""

    languages: tuple[str, ...] = ()
    voice: str | None = None
    wake_name: str = ""
    knowledge_scopes: tuple[str, ...] = ()
    chat_webhook_url: str | None = None
    operator_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "languages": list(self.languages),
            "voice": self.voice,
            "wake_name": self.wake_name,
            "knowledge_scopes": list(self.knowledge_scopes),
            "chat_webhook_url": self.chat_webhook_url,
            "operator_ids": list(self.operator_ids),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MeetingOptions:
        return cls(
            languages=tuple(data.get("languages") or ()),
            voice=data.get("voice"),
            wake_name=data.get("wake_name") or "",
            knowledge_scopes=tuple(data.get("knowledge_scopes") or ()),
            chat_webhook_url=data.get("chat_webhook_url"),
            operator_ids=tuple(data.get("operator_ids") or ()),
        )


@dataclass
class MeetingRecord:
    id: str
    mandate_id: str
    owner_id: str
    workflow_id: str
    title: str
    options: MeetingOptions
    budget_chf: float
    spent_chf: float
    status: str
    created_at: datetime
    # The owner's context at creation: the fast path, the agent and delivery run as the owner
    # (the meeting's workflow and files are theirs), never as whoever posted the utterance.
    owner_context: RequestContext
    summary: str = ""
    ended_at: datetime | None = None
    directives: list[Directive] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return self.status == "live"

    def is_operator(self, context: RequestContext) -> bool:
        """The owner, a mandate admin, or a user the creator named as operator."""
        return context.mandate_id == self.mandate_id and (
            context.user_id == self.owner_id
            or context.role is Role.admin
            or context.user_id in self.options.operator_ids
        )

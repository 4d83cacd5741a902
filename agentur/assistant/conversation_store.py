"""Persistence of visitor conversations, their messages, the pre-flight decision log and
replays. Every query filters by mandate (and assistant where it applies)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.conversation_access import ConversationAccess
from agentur.errors import NotFoundError
from agentur.storage.models.assistant import (
    AssistantConversation,
    AssistantDecision,
    AssistantMessage,
    AssistantReplay,
)


class ConversationStore:
    def __init__(self, session: AsyncSession, mandate_id: str, assistant_id: str) -> None:
        self.session = session
        self.mandate_id = mandate_id
        self.assistant_id = assistant_id

    async def create(
        self, language: str, visitor_key_id: str | None, token_hash: str
    ) -> AssistantConversation:
        row = AssistantConversation(
            mandate_id=self.mandate_id,
            assistant_id=self.assistant_id,
            state={},
            language=language,
            visitor_key_id=visitor_key_id,
            token_hash=token_hash,
        )
        self.session.add(row)
        await self.session.flush()
        return row

    async def get(
        self, conversation_id: str, access: ConversationAccess | None = None
    ) -> AssistantConversation:
        """The conversation, when `access` (if given) may use it; else NotFoundError."""
        row = (
            await self.session.execute(
                select(AssistantConversation).where(
                    AssistantConversation.id == conversation_id,
                    AssistantConversation.assistant_id == self.assistant_id,
                    AssistantConversation.mandate_id == self.mandate_id,
                )
            )
        ).scalar_one_or_none()
        if row is None:
            raise NotFoundError(f"conversation {conversation_id} not found")
        if access is not None:
            access.check(row)
        return row

    async def add_message(
        self, conversation: AssistantConversation, role: str, text: str, data: dict | None = None
    ) -> AssistantMessage:
        sequence = await self.session.scalar(
            select(func.coalesce(func.max(AssistantMessage.sequence), 0)).where(
                AssistantMessage.conversation_id == conversation.id,
                AssistantMessage.mandate_id == self.mandate_id,
            )
        )
        row = AssistantMessage(
            mandate_id=self.mandate_id,
            conversation_id=conversation.id,
            sequence=int(sequence or 0) + 1,
            role=role,
            text=text,
            data=data,
        )
        self.session.add(row)
        await self.session.flush()
        return row

    async def messages(
        self, conversation_id: str, access: ConversationAccess
    ) -> list[AssistantMessage]:
        await self.get(conversation_id, access)
        rows = await self.session.execute(
            select(AssistantMessage)
            .where(
                AssistantMessage.conversation_id == conversation_id,
                AssistantMessage.mandate_id == self.mandate_id,
            )
            .order_by(AssistantMessage.sequence)
        )
        return list(rows.scalars())

    async def log_decision(
        self,
        *,
        mode: str,
        message: str,
        decision: str,
        answers: dict[str, Any] | None,
        acted: bool,
        conversation_id: str | None = None,
        replay_id: str | None = None,
    ) -> None:
        self.session.add(
            AssistantDecision(
                mandate_id=self.mandate_id,
                assistant_id=self.assistant_id,
                conversation_id=conversation_id,
                replay_id=replay_id,
                mode=mode,
                message=message,
                decision=decision,
                answers=answers,
                acted=acted,
            )
        )
        await self.session.flush()

    async def decisions(self, limit: int = 100) -> list[AssistantDecision]:
        rows = await self.session.execute(
            select(AssistantDecision)
            .where(
                AssistantDecision.mandate_id == self.mandate_id,
                AssistantDecision.assistant_id == self.assistant_id,
            )
            .order_by(AssistantDecision.created_at.desc(), AssistantDecision.id)
            .limit(limit)
        )
        return list(rows.scalars())

    async def latest_replay(self) -> AssistantReplay | None:
        return (
            await self.session.execute(
                select(AssistantReplay)
                .where(
                    AssistantReplay.mandate_id == self.mandate_id,
                    AssistantReplay.assistant_id == self.assistant_id,
                )
                .order_by(AssistantReplay.created_at.desc())
                .limit(1)
            )
        ).scalar_one_or_none()

    async def save_replay(
        self, results: list[dict[str, Any]], changed: int, mismatched: int
    ) -> AssistantReplay:
        row = AssistantReplay(
            mandate_id=self.mandate_id,
            assistant_id=self.assistant_id,
            total=len(results),
            changed=changed,
            mismatched=mismatched,
            results=results,
        )
        self.session.add(row)
        await self.session.flush()
        return row

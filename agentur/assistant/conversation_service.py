"""Visitor conversations: start one, and run a message through the turn pipeline while
persisting the visitor's message, the assistant's answer (with its decision path, sources and
actions), the conversation state and every pre-flight decision."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm.attributes import flag_modified

from agentur.ai.service import AiService
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.assistant_service import parse_definition
from agentur.assistant.assistant_store import AssistantStore
from agentur.assistant.assistant_tools import AssistantContext, AssistantDeps
from agentur.assistant.conversation_access import ConversationAccess, new_conversation_token
from agentur.assistant.conversation_store import ConversationStore
from agentur.assistant.credentials_box import CredentialsBox
from agentur.assistant.definition import ApiCredential, AssistantDefinition
from agentur.assistant.embedding_router import GatewayEmbedder
from agentur.assistant.events import TurnEvent
from agentur.assistant.knowledge_adapter import knowledge_for
from agentur.assistant.preflight import PreflightDecision
from agentur.assistant.run_turn import TurnDeps, run_turn
from agentur.assistant.settings import AssistantSettings
from agentur.context import RequestContext, Role, utc_now
from agentur.egress.settings import allowed_hosts
from agentur.errors import InvalidInputError
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant


def assistant_context(assistant: Assistant, caller: RequestContext) -> RequestContext:
    """The identity the runtime acts with: the assistant itself, in its mandate. Knowledge reads
    never see anyone's personal files, whoever is chatting. Role `member` lets the lifecycle
    wrapper run `call_api` (not read-only) — only the tools of the assistant's own registry
    are ever offered, so this grants nothing beyond its configured catalog."""
    return RequestContext(
        user_id=assistant.id,  # 36 chars: fits every user_id column (billing)
        mandate_id=assistant.mandate_id,
        role=Role.member,
        timezone=caller.timezone,
        language=caller.language,
        require_neutralization=caller.require_neutralization,
    )


def build_api(
    definition: AssistantDefinition,
    assistant: Assistant,
    box: CredentialsBox,
    settings: AssistantSettings,
) -> AssistantApi | None:
    if definition.api_catalog is None:
        return None
    sealed = assistant.credential_encrypted

    def open_credential() -> ApiCredential | None:
        return box.open(sealed) if sealed else None

    return AssistantApi(
        definition.api_catalog,
        settings.api_limits(allowed_hosts()),
        open_credential,
        has_credential=bool(sealed),
    )


@dataclass(eq=False)
class ConversationService:
    runtime: Runtime
    settings: AssistantSettings
    ai: AiService | None
    caller: RequestContext
    box: CredentialsBox
    access: ConversationAccess

    async def start(self, assistant_id: str) -> dict[str, Any]:
        async with self.runtime.database.transaction() as session:
            assistant = await AssistantStore(session, self.caller.mandate_id).get(assistant_id)
            definition = parse_definition(assistant.definition)
            token, token_hash = new_conversation_token()
            conversation = await ConversationStore(
                session, assistant.mandate_id, assistant.id
            ).create(definition.languages[0], self.access.visitor_key_id, token_hash)
            return {
                "id": conversation.id,
                "assistant_id": assistant.id,
                "language": conversation.language,
                # Shown once; visitors send it as X-Conversation-Token on every later call.
                "token": token,
            }

    async def send(
        self, assistant_id: str, conversation_id: str, text: str
    ) -> AsyncIterator[TurnEvent]:
        """Events of the turn; everything is committed before `final` is handed out."""
        if not text.strip() or len(text) > self.settings.assistant_max_message_chars:
            raise InvalidInputError(
                f"text must have 1 to {self.settings.assistant_max_message_chars} characters"
            )
        # Short write transactions only: the gateway records billing in its own transactions
        # while the turn runs, and SQLite allows one writer at a time.
        async with self.runtime.database.transaction() as session:
            assistant = await AssistantStore(session, self.caller.mandate_id).get(assistant_id)
            conversations = ConversationStore(session, assistant.mandate_id, assistant.id)
            conversation = await conversations.get(conversation_id, self.access)
            await conversations.add_message(conversation, "visitor", text)
        definition = parse_definition(assistant.definition)
        context = assistant_context(assistant, self.caller)

        async def log_decision(decision: PreflightDecision | None, mode: str, acted: bool) -> None:
            async with self.runtime.database.transaction() as log_session:
                await ConversationStore(
                    log_session, assistant.mandate_id, assistant.id
                ).log_decision(
                    mode=mode,
                    message=text,
                    decision=decision.label if decision else "unavailable",
                    answers=decision.answers.model_dump() if decision else None,
                    acted=acted,
                    conversation_id=conversation.id,
                )

        # A deep copy: the flow position is nested, and in-place changes to the loaded JSON
        # would hide the update from the ORM.
        state = copy.deepcopy(conversation.state or {})
        async with self.runtime.database.session() as read_session:  # knowledge reads only
            deps = TurnDeps(
                ai=self.ai,
                settings=self.settings,
                knowledge=knowledge_for(read_session, self.runtime, context, definition.knowledge),
                tool_context=AssistantContext(
                    request=context,
                    runtime=self.runtime,
                    deps=AssistantDeps(api_window_chars=self.settings.assistant_api_window_chars),
                ),
                now=utc_now(),
                api=build_api(definition, assistant, self.box, self.settings),
                embedder=(
                    GatewayEmbedder(
                        self.ai, context, self.settings.assistant_router_embedding_model
                    )
                    if self.ai
                    else None
                ),
                log_decision=log_decision,
            )
            async for event in run_turn(definition, state, text, deps, context):
                if event.type == "final":
                    await read_session.rollback()  # end the read before writing
                    await self._finish(assistant, conversation.id, state, event.data)
                yield event

    async def _finish(
        self,
        assistant: Assistant,
        conversation_id: str,
        state: dict[str, Any],
        final: dict[str, Any],
    ) -> None:
        async with self.runtime.database.transaction() as session:
            conversations = ConversationStore(session, assistant.mandate_id, assistant.id)
            conversation = await conversations.get(conversation_id)
            await conversations.add_message(conversation, "assistant", final["answer"], final)
            conversation.state = state
            flag_modified(conversation, "state")
            conversation.language = final["language"]

    async def history(self, assistant_id: str, conversation_id: str) -> list[dict[str, Any]]:
        async with self.runtime.database.session() as session:
            assistant = await AssistantStore(session, self.caller.mandate_id).get(assistant_id)
            rows = await ConversationStore(session, assistant.mandate_id, assistant.id).messages(
                conversation_id, self.access
            )
            return [
                {
                    "sequence": r.sequence,
                    "role": r.role,
                    "text": r.text,
                    "data": r.data,
                    "created_at": r.created_at,
                }
                for r in rows
            ]

"""Dependencies of the assistant routes: settings, the credentials box, the AI gateway, and
the caller of visitor endpoints — a mandate API key, or a publishable visitor key that may
only converse with its own assistant (any other assistant answers 404)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from agentur.ai.service import AiService
from agentur.api.dependencies import (
    BearerDep,
    RuntimeDep,
    SessionDep,
    bearer_token,
    hand_back_connection,
    request_context,
)
from agentur.assistant.assistant_store import authenticate_visitor, is_visitor_key
from agentur.assistant.conversation_access import ConversationAccess
from agentur.assistant.credentials_box import CredentialsBox
from agentur.assistant.rate_limit import VisitorRateLimit
from agentur.assistant.settings import AssistantSettings
from agentur.assistant.visitor_origin import check_visitor_origin
from agentur.context import RequestContext, Role, resolve_language, resolve_timezone
from agentur.errors import NotFoundError


def get_assistant_settings(runtime: RuntimeDep) -> AssistantSettings:
    return runtime.all_settings.assistant


AssistantSettingsDep = Annotated[AssistantSettings, Depends(get_assistant_settings)]


def get_credentials_box(runtime: RuntimeDep) -> CredentialsBox:
    return CredentialsBox.from_settings(
        runtime.settings.assistant_secret_key, runtime.settings.data_dir
    )


def get_ai(runtime: RuntimeDep) -> AiService | None:
    # The gateway hangs off the runtime when one is configured; None means no model at all.
    return getattr(runtime, "ai", None)


CredentialsBoxDep = Annotated[CredentialsBox, Depends(get_credentials_box)]
AiDep = Annotated[AiService | None, Depends(get_ai)]


@dataclass(frozen=True, slots=True)
class Caller:
    context: RequestContext
    visitor_key_id: str | None = None
    visitor_assistant_id: str | None = None
    conversation_token: str | None = None

    @property
    def access(self) -> ConversationAccess:
        return ConversationAccess(self.visitor_key_id, self.conversation_token)

    def check_assistant(self, assistant_id: str) -> None:
        if self.visitor_assistant_id is not None and self.visitor_assistant_id != assistant_id:
            raise NotFoundError(f"assistant {assistant_id} not found")


def _limiter(request: Request, runtime: RuntimeDep) -> VisitorRateLimit:
    state = request.app.state
    if not hasattr(state, "assistant_rate_limiter"):
        state.assistant_rate_limiter = VisitorRateLimit(runtime.database)
    return state.assistant_rate_limiter


async def get_caller(
    request: Request,
    runtime: RuntimeDep,
    session: SessionDep,
    settings: AssistantSettingsDep,
    credentials: BearerDep,
    x_user_timezone: Annotated[str | None, Header()] = None,
    accept_language: Annotated[str | None, Header()] = None,
    x_conversation_token: Annotated[str | None, Header()] = None,
) -> Caller:
    token = bearer_token(credentials)
    if is_visitor_key(token):
        visitor = await authenticate_visitor(session, token)
        # Before the rate limit: a refused origin spends none of the key's budget.
        await check_visitor_origin(session, visitor.assistant_id, request.headers.get("origin"))
        await hand_back_connection(session)  # before the limiter takes one of its own
        await _limiter(request, runtime).check(
            visitor.key_id, settings.assistant_visitor_rate_per_minute
        )
        context = RequestContext(
            user_id=visitor.key_id,  # not a user id; fits user_id columns
            mandate_id=visitor.mandate_id,
            role=Role.viewer,
            timezone=resolve_timezone(x_user_timezone),
            language=resolve_language(accept_language, runtime.settings.default_language),
        )
        return Caller(context, visitor.key_id, visitor.assistant_id, x_conversation_token)
    context = await request_context(
        request,
        session,
        credentials,
        x_user_timezone=x_user_timezone,
        accept_language=accept_language,
    )
    return Caller(context)


CallerDep = Annotated[Caller, Depends(get_caller)]

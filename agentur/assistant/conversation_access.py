"""Who may continue or read a visitor conversation.

A publishable key is public by design (it sits in the page's JavaScript), so knowing it and a
conversation id must not be enough: every conversation gets a random secret token, returned
once when it starts and stored only as a SHA-256 hash. A visitor caller must present that
token (header `X-Conversation-Token`) *and* the publishable key the conversation was started
with. Mandate API keys (the operator's staff, already confined to their mandate) may read and
continue any conversation of their mandate without the token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from agentur.errors import NotFoundError
from agentur.storage.models.assistant import AssistantConversation

TOKEN_HEADER = "X-Conversation-Token"
_TOKEN_PREFIX = "act_"


def new_conversation_token() -> tuple[str, str]:
    """(token handed to the visitor, hash stored with the conversation)."""
    token = _TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ConversationAccess:
    """The caller's claim on a conversation: the publishable key it authenticated with (None
    for a mandate API key) and the conversation token it presented (if any)."""

    visitor_key_id: str | None = None
    token: str | None = None

    @property
    def is_visitor(self) -> bool:
        return self.visitor_key_id is not None

    def check(self, conversation: AssistantConversation) -> None:
        """404 — never 403 — so a stranger cannot even learn that the id exists."""
        if not self.is_visitor:
            return
        stored = conversation.token_hash
        presented = hash_token(self.token) if self.token else ""
        same_key = conversation.visitor_key_id == self.visitor_key_id
        # Compare even when the key differs: no timing hint about which part was wrong.
        same_token = stored is not None and hmac.compare_digest(stored, presented)
        if not (same_key and same_token):
            raise NotFoundError(f"conversation {conversation.id} not found")

"""Simplified thinking: raw progress (stage, tool lifecycle) rewritten for visitors.

Templates in the visitor's language by default; with `rewrite` set (a model is available and
the operator enabled it) one short gateway call rephrases the raw line, falling back to the
template on any failure. Raw tool arguments never reach the visitor.
"""

from __future__ import annotations

import logging

from agentur.ai.messages import AiRequest, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.events import TurnEvent, thinking
from agentur.assistant.phrases import phrase
from agentur.context import RequestContext
from agentur.errors import AgenturError

logger = logging.getLogger(__name__)
STAGE_PHRASES = {
    "classify": "thinking_classify",
    "search_knowledge": "thinking_search",
    "read_source_window": "thinking_read",
    "answer": "thinking_answer",
    "inspect_api": "thinking_api",
    "call_api": "thinking_api",
}


async def simplified(
    stage: str,
    language: str,
    *,
    ai: AiService | None = None,
    context: RequestContext | None = None,
    raw: str | None = None,
    **extra: object,
) -> TurnEvent:
    text = phrase(STAGE_PHRASES.get(stage, "thinking_classify"), language)
    if ai is not None and context is not None and raw:
        request = AiRequest(
            operation=OperationType.data_generate,
            messages=(
                Message.system(
                    f"Rewrite this progress note for a website visitor in one short sentence, "
                    f"language {language}. No ids, no arguments, no names of internal tools."
                ),
                Message.user(raw),
            ),
            options=CallOptions(temperature=0.2, max_output_tokens=60),
        )
        try:
            text = (await ai.call(request, context)).text.strip() or text
        except (AgenturError, ProviderError) as error:
            logger.info("simplified thinking fell back to templates: %s", error)
    return thinking(text, stage, **extra)

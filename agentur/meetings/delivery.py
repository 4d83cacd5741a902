"""How a reply reaches the meeting: always as text (a `reply` event); as speech (a `speech`
event linking the synthesized audio, a workspace file of the session's owner) when a
text-to-speech model is configured — else the stream says once that replies are text only;
and as a chat message posted to the session's webhook, through the egress rules."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentur.ai.gateway_errors import NoModelError
from agentur.ai.messages import AiRequest, CallOptions, Message, SpeechOptions
from agentur.ai.model_spec import Capability
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.egress.fetch import fetch
from agentur.egress.policy import EgressPolicy
from agentur.egress.settings import allowed_hosts
from agentur.errors import AgenturError
from agentur.meetings.events import EventHub, MeetingEventType
from agentur.meetings.records import MeetingRecord
from agentur.meetings.settings import MeetingSettings
from agentur.tools.text_to_speech import MAX_CHARS as MAX_SPEECH_CHARS
from agentur.tools.text_to_speech import MIME_TYPES
from agentur.workspace.files import FileService

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

logger = logging.getLogger(__name__)

WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024


def webhook_policy(settings: MeetingSettings) -> EgressPolicy:
    return EgressPolicy(
        timeout_seconds=settings.meeting_webhook_timeout_seconds,
        max_bytes=WEBHOOK_MAX_RESPONSE_BYTES,
        max_redirects=0,
        allowed=allowed_hosts(),
    )


def speech_configured(runtime: RuntimeParts) -> bool:
    return any(Capability.text_to_speech in spec.capabilities for spec in runtime.ai.models())


@dataclass
class Delivery:
    runtime: RuntimeParts
    record: MeetingRecord
    hub: EventHub
    settings: MeetingSettings
    _text_only_said: bool = False

    async def say(self, text: str, source: str, **extra: Any) -> float:
        """Delivers `text` on every channel; returns what speaking it cost (CHF)."""
        event = self.hub.publish(MeetingEventType.reply, {"text": text, "source": source, **extra})
        cost = await self._speak(text, event.sequence)
        await self._post_chat(text, source)
        return cost

    async def _speak(self, text: str, reply_sequence: int) -> float:
        if self._text_only_said:
            return 0.0
        if not speech_configured(self.runtime):
            self._text_only("no text-to-speech model is configured; replies are text only")
            return 0.0
        audio_format = self.settings.meeting_speech_format
        request = AiRequest(
            OperationType.text_to_speech,
            (Message.user(text[:MAX_SPEECH_CHARS]),),
            options=CallOptions(
                speech=SpeechOptions(voice=self.record.options.voice, format=audio_format)
            ),
            workflow_id=self.record.workflow_id,
        )
        try:
            response = await self.runtime.ai.call(request, self.record.owner_context)
        except NoModelError as error:
            self._text_only(f"no text-to-speech model this mandate may use ({error.detail})")
            return 0.0
        except (AgenturError, ProviderError) as error:
            self._error("speech_failed", f"speaking the reply failed: {error}")
            return 0.0
        if not response.audio:
            self._error("speech_failed", f"{response.model} returned no audio")
            return response.cost_chf
        file_id = await self._store_audio(response.audio, audio_format, reply_sequence)
        self.hub.publish(
            MeetingEventType.speech,
            {
                "reply": reply_sequence,
                "file_id": file_id,
                "url": f"/v1/files/{file_id}/download",
                "format": audio_format,
                "mime_type": MIME_TYPES[audio_format],
                "model": response.model,
            },
        )
        return response.cost_chf

    async def _store_audio(self, audio: bytes, audio_format: str, sequence: int) -> str:
        async def one_chunk() -> AsyncIterator[bytes]:
            yield audio

        name = f"meeting-{self.record.id[:8]}-reply-{sequence}.{audio_format}"
        async with self.runtime.database.session() as session:
            files = FileService(
                session,
                self.runtime.blobs,
                self.record.owner_context,
                self.runtime.workspace_limits,
            )
            stored = await files.upload(name, one_chunk(), mime_type=MIME_TYPES[audio_format])
            await files.commit()
            return stored.id

    async def _post_chat(self, text: str, source: str) -> None:
        url = self.record.options.chat_webhook_url
        if not url:
            return
        body = {"session_id": self.record.id, "text": text, "source": source}
        try:
            answer = await fetch(
                url,
                webhook_policy(self.settings),
                method="POST",
                headers={"Content-Type": "application/json"},
                content=json.dumps(body, ensure_ascii=False).encode(),
            )
        except AgenturError as error:
            self._error("chat_webhook_failed", f"the chat message was not posted: {error}")
            return
        if answer.status_code >= 400:
            self._error(
                "chat_webhook_failed", f"the chat webhook answered HTTP {answer.status_code}"
            )

    def _text_only(self, message: str) -> None:
        self._text_only_said = True
        self._error("text_only", message)

    def _error(self, code: str, message: str) -> None:
        logger.info("meeting %s: %s", self.record.id, message)
        self.hub.publish(MeetingEventType.error, {"code": code, "message": message})

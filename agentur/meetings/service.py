"""The meeting sessions of this worker, and the checks every request passes (API → here →
store). Sessions are rows every worker can read; the live part of a session — its inbox, its
agent queue, its event stream — is held by the worker that created it, or adopted by the worker
a request for it reaches. Events therefore stream from the worker that handles the session's
transcript: a bridge sends its requests for one meeting to one worker (session affinity)."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from agentur.context import RequestContext
from agentur.errors import BusyError, ConflictError, ForbiddenError, InvalidInputError
from agentur.meetings.events import MeetingEvent, MeetingEventType
from agentur.meetings.live_session import LiveSession
from agentur.meetings.records import (
    Directive,
    DirectiveKind,
    MeetingOptions,
    MeetingRecord,
    Utterance,
)
from agentur.meetings.settings import MeetingSettings
from agentur.meetings.store import MeetingStore
from agentur.meetings.summary import summarize_meeting

if TYPE_CHECKING:
    from agentur.agent.settings import AgentSettings
    from agentur.runtime import Runtime

logger = logging.getLogger(__name__)

ENDED_KEPT = 100  # ended sessions whose last events stay readable in this worker
RETRY_AFTER_SECONDS = 60  # how long ending waits for utterances still being answered


class MeetingService:
    def __init__(
        self, runtime: Runtime, settings: MeetingSettings, agent_settings: AgentSettings
    ) -> None:
        self.runtime = runtime
        self.settings = settings
        self.agent_settings = agent_settings
        self.store = MeetingStore(runtime.database)
        self._live: dict[str, LiveSession] = {}
        self._ended: OrderedDict[str, LiveSession] = OrderedDict()

    # ------------------------------------------------------------ lifecycle

    async def create(
        self, context: RequestContext, title: str, options: MeetingOptions, budget_chf: float
    ) -> MeetingRecord:
        if not context.can_write:
            raise ForbiddenError(f"your role ({context.role}) may not start meeting sessions")
        self._check_room()
        record = await self.store.create(context, title, options, budget_chf)
        self._hold(record)
        return record

    async def get(self, session_id: str, context: RequestContext) -> MeetingRecord:
        return await self.store.get(session_id, context)

    async def end(self, session_id: str, context: RequestContext) -> MeetingRecord:
        record = await self.store.get(session_id, context)
        self._require_operator(record, context, "end")
        if not record.live:
            raise ConflictError(f"meeting session {session_id} has ended already")
        live = self._live.pop(session_id, None)
        if live is not None:
            try:
                # What was said is answered and research under way delivered, within limits.
                async with asyncio.timeout(self.settings.meeting_end_wait_seconds):
                    await live.idle()
            except TimeoutError:
                logger.info("meeting %s ended with answers still under way", session_id)
            await live.stop()
            record = live.record
        summary, cost = await summarize_meeting(
            self.runtime, record, self.settings.meeting_summary_max_output_tokens
        )
        await self.store.add_spent(record, cost)
        await self.store.end(record, summary)
        if live is not None:
            live.hub.publish(MeetingEventType.ended, {"summary": summary})
            self._ended[session_id] = live
            while len(self._ended) > ENDED_KEPT:
                self._ended.popitem(last=False)
        return record

    async def close(self) -> None:
        """Stops every live session of this worker (shutdown)."""
        for live in list(self._live.values()):
            await live.stop()
        self._live.clear()

    # ------------------------------------------------------------ transcript

    async def hear(
        self, session_id: str, context: RequestContext, utterances: Sequence[Utterance]
    ) -> MeetingRecord:
        if not context.can_write:
            raise ForbiddenError(f"your role ({context.role}) may not send utterances")
        record = await self._live_record(session_id, context)
        self.live(record).hear(utterances)
        return record

    async def events(
        self, session_id: str, context: RequestContext, after: int
    ) -> AsyncIterator[MeetingEvent]:
        record = await self.store.get(session_id, context)  # 404 for another mandate
        held = self._live.get(session_id) or self._ended.get(session_id)
        if held is None:
            if not record.live:
                return self._only_ended(record)
            held = self.live(record)
        return held.hub.listen(after)

    @staticmethod
    async def _only_ended(record: MeetingRecord) -> AsyncIterator[MeetingEvent]:
        yield MeetingEvent(0, MeetingEventType.ended, {"summary": record.summary})

    # ------------------------------------------------------------ directives

    async def add_directive(
        self, session_id: str, context: RequestContext, kind: DirectiveKind, text: str
    ) -> Directive:
        record = await self._live_record(session_id, context)
        self._require_operator(record, context, "send directives to")
        if kind is DirectiveKind.persistent:
            standing = [d for d in record.directives if d.kind is kind and d.withdrawn_at is None]
            if len(standing) >= self.settings.meeting_max_directives:
                raise InvalidInputError(
                    f"this meeting holds {len(standing)} persistent directives already "
                    f"(AGENTUR_MEETING_MAX_DIRECTIVES); withdraw one first"
                )
        directive = await self.store.add_directive(record, context, kind, text)
        if kind is DirectiveKind.one_shot:
            self.live(record).direct(text)
        return directive

    async def withdraw_directive(
        self, session_id: str, directive_id: str, context: RequestContext
    ) -> Directive:
        record = await self.store.get(session_id, context)
        self._require_operator(record, context, "withdraw directives of")
        return await self.store.withdraw(record, directive_id)

    # ------------------------------------------------------------ helpers

    def held(self, session_id: str) -> LiveSession | None:
        """The live part of a session this worker holds (or held until it ended)."""
        return self._live.get(session_id) or self._ended.get(session_id)

    def live(self, record: MeetingRecord) -> LiveSession:
        """This worker's live part of `record` (adopted when another worker created it)."""
        held = self._live.get(record.id)
        return held if held is not None else self._hold(record)

    def _hold(self, record: MeetingRecord) -> LiveSession:
        self._check_room()
        live = LiveSession(self.runtime, record, self.settings, self.agent_settings)
        self._live[record.id] = live
        live.start()
        return live

    def _check_room(self) -> None:
        limit = self.settings.meeting_max_live_sessions
        if len(self._live) >= limit:
            raise BusyError(
                f"this worker holds {limit} live meetings (AGENTUR_MEETING_MAX_LIVE_SESSIONS)",
                RETRY_AFTER_SECONDS,
            )

    async def _live_record(self, session_id: str, context: RequestContext) -> MeetingRecord:
        record = await self.store.get(session_id, context)
        if not record.live:
            raise ConflictError(f"meeting session {session_id} has ended")
        return record

    @staticmethod
    def _require_operator(record: MeetingRecord, context: RequestContext, what: str) -> None:
        if not record.is_operator(context):
            raise ForbiddenError(
                f"only the meeting's operators (its owner, mandate admins and the operators "
                f"named at its start) may {what} this meeting"
            )

"""One live meeting in this worker: a task that takes what was said (and one-shot directives)
from its inbox, runs the fast path, hands escalations to the agent queue and delivers replies.

The task runs in a context of its own: a fresh `contextvars.Context` holding only the session
owner's request context. It never inherits the tag, tracing or billing holder of the request
that happened to start it, and its database work opens short sessions of its own — never one
while another is held."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentur.ai.providers.base import ProviderError
from agentur.context import set_request_context
from agentur.errors import AgenturError
from agentur.meetings.agent_run import run_escalation
from agentur.meetings.delivery import Delivery
from agentur.meetings.escalation import Escalation, EscalationQueue, Submitted
from agentur.meetings.events import EventHub, MeetingEventType
from agentur.meetings.fast_path import FastPathInput, fast_reply
from agentur.meetings.knowledge import knowledge_context
from agentur.meetings.records import MeetingRecord, Utterance
from agentur.meetings.settings import MeetingSettings
from agentur.meetings.store import MeetingStore
from agentur.workflows.service import WorkflowService

if TYPE_CHECKING:
    from agentur.agent.settings import AgentSettings
    from agentur.runtime import Runtime

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Heard:
    utterances: tuple[Utterance, ...]


@dataclass(frozen=True, slots=True)
class Directed:
    text: str


class LiveSession:
    def __init__(
        self,
        runtime: Runtime,
        record: MeetingRecord,
        settings: MeetingSettings,
        agent_settings: AgentSettings,
    ) -> None:
        self.runtime = runtime
        self.record = record
        self.settings = settings
        self.agent_settings = agent_settings
        self.store = MeetingStore(runtime.database)
        self.hub = EventHub(settings.meeting_event_buffer)
        self.delivery = Delivery(runtime, record, self.hub, settings)
        self.window: deque[Utterance] = deque(maxlen=settings.meeting_window_utterances)
        self.inbox: asyncio.Queue[Heard | Directed] = asyncio.Queue()
        self.escalations = EscalationQueue(self._escalate)
        self.fast_calls = 0
        self._budget_said = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(
            self._work(), name=f"meeting-{self.record.id}", context=contextvars.Context()
        )

    # ------------------------------------------------------------------ inbox

    def hear(self, utterances: Sequence[Utterance]) -> None:
        self.inbox.put_nowait(Heard(tuple(utterances)))

    def direct(self, text: str) -> None:
        """A one-shot directive: the agent runs on it directly, without the fast path."""
        self.inbox.put_nowait(Directed(text))

    async def idle(self) -> None:
        """Returns once everything received so far is answered (tests, the end of a meeting)."""
        while True:
            await self.inbox.join()
            await self.escalations.idle()
            if self.inbox.empty() and not self.escalations.busy:
                return

    async def stop(self) -> None:
        await self.escalations.cancel()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _work(self) -> None:
        set_request_context(self.record.owner_context)
        while True:
            items = [await self.inbox.get()]
            while not self.inbox.empty():  # what arrived meanwhile is answered in one call
                items.append(self.inbox.get_nowait())
            try:
                heard = [u for item in items if isinstance(item, Heard) for u in item.utterances]
                for item in items:
                    if isinstance(item, Directed):
                        self.escalations.submit(Escalation(item.text, "directive"))
                if heard:
                    await self._listen(heard)
            except Exception:  # the meeting goes on; the listener hears what went wrong
                logger.exception("meeting %s: handling utterances failed", self.record.id)
                self._error("internal", "handling what was said failed; see the server log")
            finally:
                for _ in items:
                    self.inbox.task_done()

    # -------------------------------------------------------------- fast path

    async def _listen(self, heard: list[Utterance]) -> None:
        earlier = list(self.window)
        self.window.extend(heard)
        reply_text = ""
        if self._within_budget():
            reply_text = await self._fast_path(earlier, heard)
        await self._record(heard, reply_text)

    async def _fast_path(self, earlier: list[Utterance], heard: list[Utterance]) -> str:
        record, settings = self.record, self.settings
        directives = await self.store.persistent_directives(record)
        said = " ".join(u.text for u in heard)
        knowledge = await knowledge_context(
            self.runtime,
            said,
            record.options.knowledge_scopes,
            record.owner_context,
            settings.meeting_knowledge_chars,
        )
        given = FastPathInput(
            wake_name=record.options.wake_name or settings.meeting_wake_name,
            languages=record.options.languages,
            window=_window(earlier, settings.meeting_window_chars),
            new=heard,
            directives=directives,
            knowledge=knowledge,
        )
        self.fast_calls += 1
        try:
            result = await fast_reply(
                self.runtime.ai,
                given,
                record.owner_context,
                workflow_id=record.workflow_id,
                max_output_tokens=settings.meeting_reply_max_output_tokens,
            )
        except (AgenturError, ProviderError) as error:
            self._error("fast_path_failed", str(getattr(error, "detail", None) or error))
            return ""
        await self.store.add_spent(record, result.cost_chf)
        reply = result.reply
        text = reply.text.strip() if reply.respond else ""
        if text:
            await self._spend(await self.delivery.say(text, "fast_path", model=result.model))
        if reply.needs_agent:
            submitted = self.escalations.submit(Escalation(reply.agent_reason, "fast_path"))
            if submitted is not Submitted.started:
                logger.info("meeting %s: escalation %s", record.id, submitted.value)
        return text

    async def _record(self, heard: list[Utterance], reply_text: str) -> None:
        """The transcript (and the fast reply) in the meeting's workflow, after the answer:
        the listener does not wait for the bookkeeping."""
        async with self.runtime.database.transaction() as session:
            workflows = WorkflowService(session, self.record.owner_context)
            lines = "\n".join(u.line() for u in heard)
            await workflows.append(
                self.record.workflow_id, "transcript", lines, {"utterances": len(heard)}
            )
            if reply_text:
                await workflows.append(
                    self.record.workflow_id, "assistant", reply_text, {"meeting_reply": True}
                )

    # ------------------------------------------------------------------ agent

    async def _escalate(self, escalation: Escalation) -> None:
        if not self._within_budget():
            return
        remaining = self.record.budget_chf - self.record.spent_chf
        result = await run_escalation(
            self.runtime,
            self.record,
            self.hub,
            self.agent_settings,
            self.settings,
            escalation,
            min(self.settings.meeting_agent_max_cost_chf, remaining),
        )
        if result is None:
            return
        await self.store.add_spent(self.record, result.cost_chf)
        if result.final_text.strip():
            spoken = await self.delivery.say(
                result.final_text.strip(), "agent", run_id=result.run_id
            )
            await self._spend(spoken)

    # ------------------------------------------------------------------ money

    async def _spend(self, chf: float) -> None:
        await self.store.add_spent(self.record, chf)

    def _within_budget(self) -> bool:
        if self.record.spent_chf < self.record.budget_chf:
            return True
        if not self._budget_said:
            self._budget_said = True
            self._error(
                "budget_exhausted",
                f"the session's budget of CHF {self.record.budget_chf:.2f} is used up; "
                "the assistant stays silent",
            )
        return False

    def _error(self, code: str, message: str) -> None:
        self.hub.publish(MeetingEventType.error, {"code": code, "message": message})


def _window(utterances: list[Utterance], max_chars: int) -> list[Utterance]:
    """The most recent utterances that fit in `max_chars`, oldest first."""
    kept: list[Utterance] = []
    used = 0
    for utterance in reversed(utterances):
        used += len(utterance.line()) + 1
        if used > max_chars:
            break
        kept.append(utterance)
    return kept[::-1]

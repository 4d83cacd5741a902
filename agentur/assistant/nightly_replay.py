"""The built-in nightly schedule: at a configured local time and zone, replay every
assistant that has a label set, in every mandate. Runs inside `agentur assistants nightly`."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from agentur.ai.service import AiService
from agentur.assistant.replay import Label, ReplayReport, run_replay
from agentur.assistant.settings import AssistantSettings
from agentur.context import utc_now
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant

logger = logging.getLogger(__name__)


def next_run(now: datetime, at: str, zone: str) -> datetime:
    """The next wall-clock `at` (HH:MM) in `zone` strictly after `now`, as an aware datetime.
    Computed on the local calendar, so daylight-saving changes keep the local time."""
    local_now = now.astimezone(ZoneInfo(zone))
    hour, minute = map(int, at.split(":"))
    candidate = local_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate <= local_now:
        day = (candidate + timedelta(days=1)).date()
        candidate = datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(zone))
    return candidate


async def replay_all(
    runtime: Runtime, ai: AiService, settings: AssistantSettings
) -> list[ReplayReport]:
    reports = []
    async with runtime.database.session() as session:
        # A system job: it visits every mandate, and each replay stays inside its own one.
        ids = list(
            (
                await session.execute(select(Assistant.id).where(Assistant.labels.is_not(None)))
            ).scalars()
        )
    for assistant_id in ids:
        async with runtime.database.transaction() as session:
            assistant = await session.get(Assistant, assistant_id)
            if assistant is None or not assistant.labels:
                continue
            labels = [Label.model_validate(item) for item in assistant.labels]
            report = await run_replay(session, ai, assistant, labels, settings)
            logger.info("nightly replay of %s: %d changed", assistant_id, report.changed)
            reports.append(report)
    return reports


async def run_schedule(
    runtime: Runtime, ai: AiService, settings: AssistantSettings, stop: asyncio.Event
) -> None:
    while not stop.is_set():
        due = next_run(
            utc_now(), settings.assistant_replay_time, settings.assistant_replay_timezone
        )
        delay = max(0.0, (due - utc_now()).total_seconds())
        logger.info("next nightly replay at %s", due.isoformat())
        try:
            await asyncio.wait_for(stop.wait(), timeout=delay)
            return
        except TimeoutError:
            pass
        try:
            await replay_all(runtime, ai, settings)
        except Exception:  # the schedule must survive one bad night
            logger.exception("nightly replay failed")

"""The agent queue of a meeting: one run at a time; tasks arriving meanwhile wait and are
merged into the next run; the same task is never run twice at once."""

from __future__ import annotations

import asyncio

from agentur.meetings.escalation import Escalation, EscalationQueue, Submitted


async def test_one_run_at_a_time_later_tasks_merged_repeats_dropped() -> None:
    started: list[str] = []
    running = 0
    most = 0
    gate = asyncio.Event()

    async def run(escalation: Escalation) -> None:
        nonlocal running, most
        started.append(escalation.brief)
        running += 1
        most = max(most, running)
        await gate.wait()
        running -= 1

    queue = EscalationQueue(run)
    assert queue.submit(Escalation("Look up the weather", "fast_path")) is Submitted.started
    await asyncio.sleep(0)
    assert queue.submit(Escalation("look up  the WEATHER", "fast_path")) is Submitted.merged
    assert queue.submit(Escalation("Find the budget file", "directive")) is Submitted.queued
    assert queue.submit(Escalation("Check the calendar", "fast_path")) is Submitted.queued
    assert queue.submit(Escalation("Check the calendar", "fast_path")) is Submitted.merged
    assert started == ["Look up the weather"]
    gate.set()
    await asyncio.wait_for(queue.idle(), 5)
    assert most == 1
    assert len(started) == 2
    assert started[1].startswith("Handle these tasks from the meeting:")
    assert "1. Find the budget file" in started[1] and "2. Check the calendar" in started[1]
    assert not queue.busy


async def test_a_failing_run_does_not_block_the_next_and_cancel_stops_everything() -> None:
    seen: list[str] = []
    hold = asyncio.Event()

    async def run(escalation: Escalation) -> None:
        seen.append(escalation.brief)
        if escalation.brief == "fails":
            raise RuntimeError("boom")
        await hold.wait()

    queue = EscalationQueue(run)
    queue.submit(Escalation("fails", "fast_path"))
    queue.submit(Escalation("waits", "fast_path"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert seen == ["fails", "waits"] and queue.busy
    queue.submit(Escalation("never", "fast_path"))
    await queue.cancel()
    await asyncio.wait_for(queue.idle(), 5)
    assert seen == ["fails", "waits"] and not queue.busy

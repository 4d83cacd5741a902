"""The reference bridge (`agentur meeting play`) against a real server: it feeds the German
transcript line by line, the events stream in while the meeting runs, and ending prints the
summary. Every request it sends is watched by the connection discipline."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from agentur.api.app import create_app
from agentur.cli.meeting_commands import PlayOptions, play_transcript
from agentur.runtime import Runtime
from tests.api.live_server import live_server
from tests.conftest import Tenants
from tests.connection_discipline import ConnectionDiscipline, DisciplinedApp
from tests.meetings.support import AGENT_ANSWER, ANSWER, DATA, meeting_model


async def test_the_bridge_plays_a_transcript_and_prints_the_replies_as_they_stream(
    runtime: Runtime, tenants: Tenants, discipline: ConnectionDiscipline
) -> None:
    runtime.ai, _ = meeting_model()
    alice = await tenants.member()
    app: FastAPI = create_app(runtime=runtime)
    printed: list[str] = []
    options = PlayOptions(
        title="stand-up", wake_name="Agentur", languages=("de",), speed=20.0, linger_seconds=1.0
    )
    async with (
        live_server(DisciplinedApp(app)) as base_url,
        httpx.AsyncClient(base_url=base_url, headers=alice.headers, timeout=30) as client,
    ):
        ended = await play_transcript(
            client, (DATA / "standup.de.txt").read_text(), options, printed.append
        )
    assert not discipline.violations, discipline.report()
    assert ended["status"] == "ended" and ended["summary"]
    lines = "\n".join(printed)
    assert f"  >> assistant (fast_path): {ANSWER['de']}" in printed
    assert f"  >> assistant (agent): {AGENT_ANSWER['de']}" in printed
    assert "  .. agent researching:" in lines
    assert printed[-1] == "  -- meeting ended" or "[summary]" in lines
    # The answer to the question is printed after the question was said, not at the end.
    assert printed.index(f"  >> assistant (fast_path): {ANSWER['de']}") > next(
        n for n, line in enumerate(printed) if "Februar" in line and line.startswith("Anna:")
    )

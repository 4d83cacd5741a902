"""`agentur meeting play transcript.txt` — the reference bridge: a client of a running server
that feeds a transcript file into a meeting session line by line in real time and prints (and
optionally plays) what the assistant says. It uses only the public `/v1/meetings` API, exactly
as a Teams, Zoom or Meet bridge would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    import httpx

DEFAULT_URL = "http://127.0.0.1:8000"
TRANSCRIPT_HELP = "One utterance a line: `Speaker: text`, optionally after an `\\[mm:ss]` offset."
Echo = Callable[[str], None]


@dataclass(frozen=True)
class PlayOptions:
    meeting: str | None = None
    title: str = ""
    wake_name: str | None = None
    languages: tuple[str, ...] = ()
    pace_seconds: float = 3.0  # between lines without a time offset
    speed: float = 1.0  # 2.0 plays twice as fast as the offsets say
    linger_seconds: float = 30.0  # after the last line, for late answers
    end: bool = True
    player: str | None = None  # e.g. "mpv --no-video": plays each speech file


async def play_transcript(
    client: httpx.AsyncClient, text: str, options: PlayOptions, echo: Echo
) -> dict[str, Any]:
    """Feeds `text` into a (new) session; returns the session as it ended (or is)."""
    from agentur.meetings.transcript_file import parse_transcript

    lines = parse_transcript(text)
    if options.meeting:
        session = await _checked(client.get(f"/v1/meetings/{options.meeting}"))
    else:
        body: dict[str, Any] = {"title": options.title, "languages": list(options.languages)}
        if options.wake_name:
            body["wake_name"] = options.wake_name
        session = await _checked(client.post("/v1/meetings", json=body))
        echo(f"meeting {session['id']} (answers to {session['wake_name']!r})")
    listener = asyncio.create_task(_listen(client, session["id"], options, echo))
    started = time.monotonic()
    elapsed_lines = 0.0
    for line in lines:
        due = line.offset_seconds if line.offset_seconds is not None else elapsed_lines
        elapsed_lines = due + options.pace_seconds
        wait = due / options.speed - (time.monotonic() - started)
        if wait > 0:
            await asyncio.sleep(wait)
        echo(f"{line.speaker}: {line.text}")
        await _checked(
            client.post(
                f"/v1/meetings/{session['id']}/transcript",
                json={"utterances": [{"speaker": line.speaker, "text": line.text}]},
            )
        )
    await asyncio.sleep(options.linger_seconds)
    if options.end:
        session = await _checked(client.delete(f"/v1/meetings/{session['id']}"))
        echo(f"[summary]\n{session['summary']}")
    with contextlib.suppress(asyncio.CancelledError, TimeoutError):
        if options.end:
            await asyncio.wait_for(listener, 10)
    listener.cancel()
    return session


async def _listen(
    client: httpx.AsyncClient, session_id: str, options: PlayOptions, echo: Echo
) -> None:
    async with client.stream("GET", f"/v1/meetings/{session_id}/events", timeout=None) as stream:
        event = ""
        async for raw in stream.aiter_lines():
            if raw.startswith("event: "):
                event = raw[7:]
            elif raw.startswith("data: "):
                data = json.loads(raw[6:])
                echo(_describe(event, data))
                if event == "speech" and options.player:
                    await _play(client, data["url"], data["format"], options.player)


def _describe(event: str, data: dict[str, Any]) -> str:
    if event == "reply":
        return f"  >> assistant ({data.get('source')}): {data['text']}"
    if event == "speech":
        return f"  >> speech: {data['url']}"
    if event == "agent_started":
        return f"  .. agent researching: {data['brief']}"
    if event == "agent_final":
        return (
            f"  .. agent {data['status']} after {data['rounds']} round(s), CHF {data['cost_chf']}"
        )
    if event == "ended":
        return "  -- meeting ended"
    return f"  !! {data.get('code', event)}: {data.get('message', '')}"


async def _play(client: httpx.AsyncClient, url: str, audio_format: str, player: str) -> None:
    audio = await client.get(url)
    if audio.status_code != 200:
        return
    with tempfile.NamedTemporaryFile(suffix=f".{audio_format}") as file:
        file.write(audio.content)
        file.flush()
        process = await asyncio.create_subprocess_exec(*shlex.split(player), file.name)
        await process.wait()


async def _checked(pending: Any) -> dict[str, Any]:
    response = await pending
    if response.status_code >= 400:
        try:
            detail = response.json().get("detail", response.text)
        except ValueError:
            detail = response.text
        raise RuntimeError(f"HTTP {response.status_code}: {detail}")
    return response.json()


def register(app: typer.Typer) -> None:
    meeting_app = typer.Typer(help="The meeting assistant's reference bridge.")
    app.add_typer(meeting_app, name="meeting")

    @meeting_app.command("play")
    def play(
        transcript: Annotated[Path, typer.Argument(help=TRANSCRIPT_HELP)],
        key: Annotated[str, typer.Option(envvar="AGENTUR_API_KEY", help="API key.")],
        url: Annotated[str, typer.Option(envvar="AGENTUR_URL", help="Server.")] = DEFAULT_URL,
        meeting: Annotated[str | None, typer.Option(help="An existing session's id.")] = None,
        wake_name: Annotated[str | None, typer.Option(help="Name it answers to.")] = None,
        language: Annotated[list[str] | None, typer.Option(help="ISO code; repeat.")] = None,
        pace: Annotated[float, typer.Option(help="Seconds between untimed lines.")] = 3.0,
        speed: Annotated[float, typer.Option(min=0.01, help="Faster than real time.")] = 1.0,
        linger: Annotated[float, typer.Option(help="Seconds to wait after the end.")] = 30.0,
        keep: Annotated[bool, typer.Option(help="Leave the session running.")] = False,
        player: Annotated[str | None, typer.Option(help="Audio player command.")] = None,
    ) -> None:
        """Feed a transcript into a meeting session in real time; print and play the replies."""
        import httpx

        options = PlayOptions(
            meeting=meeting,
            title=transcript.stem,
            wake_name=wake_name,
            languages=tuple(language or ()),
            pace_seconds=pace,
            speed=speed,
            linger_seconds=linger,
            end=not keep,
            player=player,
        )

        async def main() -> None:
            headers = {"Authorization": f"Bearer {key}"}
            async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
                await play_transcript(client, transcript.read_text(), options, typer.echo)

        try:
            asyncio.run(main())
        except (RuntimeError, ValueError, OSError) as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(1) from error

"""The harness of `bench/real_model.py`: agentur in process (fresh data dir, the bench's files
uploaded and indexed) against a model server, with every call's usage counted per task. The slow
test tier (tests/real_servers) runs its tasks through it too."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agentur.accounts import directory
from agentur.accounts.api_keys import issue_api_key
from agentur.ai.messages import AiResponse, StreamDone
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.settings import AiSettings
from agentur.api.app import create_app
from agentur.config import Settings
from agentur.context import Role
from agentur.knowledge.store import knowledge_store
from agentur.runtime import Runtime
from agentur.settings import AllSettings

FILES = {
    "notes.txt": "Project Alpenblick kick-off\nBudget: CHF 48,000\nOwner: Mara Keller\n",
    "hours.md": "# Opening hours\n\nThe Lenzburg shop is open Monday to Friday 8:00 to 18:30 "
    "and Saturday 9:00 to 16:00. It is closed on Sundays and public holidays.\n",
}


@dataclass
class Usage:
    """What the model server was asked, counted at the provider (every call of a task)."""

    calls: int = 0
    prompt: int = 0
    cached: int = 0
    first_prompt: int = 0  # the task's first call: prompt tokens and seconds to its end
    first_seconds: float = 0.0
    http_400: int = 0
    # What the server said for each refused request (its error message), to find the cause.
    refusals: list[str] = field(default_factory=list)

    def add(self, response: AiResponse, seconds: float) -> None:
        if not self.calls:
            self.first_prompt, self.first_seconds = response.usage.input_tokens, seconds
        self.calls += 1
        self.prompt += response.usage.input_tokens
        self.cached += response.usage.cached_tokens


@dataclass
class Outcome:
    name: str
    ok: bool
    usage: Usage
    seconds: float
    note: str = ""


@dataclass
class Bench:
    client: httpx.AsyncClient
    runtime: Runtime
    headers: dict[str, str]
    max_rounds: int = 8  # of each agent run
    temperature: float | None = None  # of each agent run; None: agentur's default
    usage: Usage = field(default_factory=Usage)
    results: list[Outcome] = field(default_factory=list)

    async def measure(self, name: str, task: Callable[[], Awaitable[tuple[bool, str]]]) -> None:
        self.usage = Usage()
        started = time.perf_counter()
        try:
            ok, note = await task()
        except Exception as error:  # noqa: BLE001 - a failing task is a result, not a crash
            ok, note = False, f"{type(error).__name__}: {error}"[:160]
        outcome = Outcome(name, ok, self.usage, time.perf_counter() - started, note)
        self.results.append(outcome)
        print(_row(outcome), flush=True)


def _row(o: Outcome) -> str:
    mark = "ok  " if o.ok else "FAIL"
    u = o.usage
    usage = (
        f"{u.calls:>3} {u.prompt:>8} {u.cached:>8} {u.first_prompt:>6} {u.first_seconds:>6.1f}s"
        f" {u.http_400:>3}"
    )
    return f"{mark} {o.name:<26} {usage} {o.seconds:>8.1f}s  {o.note[:160]!r}"


def refused(usage: Usage, error: Exception) -> None:
    if getattr(error, "status_code", None) == 400:
        usage.http_400 += 1
        usage.refusals.append(str(error)[:500])


def count_usage(runtime: Runtime, bench: Callable[[], Bench]) -> None:
    """Wraps the OpenAI-compatible provider so every response's usage is counted."""
    provider = runtime.ai.registry.providers["openai_compatible"]
    stream, complete = provider.stream, provider.complete

    async def counted_stream(spec: Any, request: Any) -> AsyncIterator[Any]:
        started = time.perf_counter()
        try:
            async for event in stream(spec, request):
                if isinstance(event, StreamDone):
                    bench().usage.add(event.response, time.perf_counter() - started)
                yield event
        except Exception as error:
            refused(bench().usage, error)
            raise

    async def counted_complete(spec: Any, request: Any) -> AiResponse:
        started = time.perf_counter()
        try:
            response = await complete(spec, request)
        except Exception as error:
            refused(bench().usage, error)
            raise
        bench().usage.add(response, time.perf_counter() - started)
        return response

    provider.stream, provider.complete = counted_stream, counted_complete  # type: ignore[method-assign]


async def setup(runtime: Runtime) -> dict[str, str]:
    await runtime.migrate()
    async with runtime.database.transaction() as session:
        mandate = await directory.create_mandate(session, "bench")
        user = await directory.create_user(session, "bench@bench.test")
        await directory.add_membership(
            session, user_id=user.id, mandate_id=mandate.id, role=Role.admin
        )
        issued = await issue_api_key(session, user_id=user.id, mandate_id=mandate.id)
    return {"Authorization": f"Bearer {issued.plaintext}"}


@asynccontextmanager
async def running_bench(
    base_url: str,
    model: str | None,
    data_dir: Path,
    call_seconds: float = 900.0,
    limits: dict[str, int] | None = None,
) -> AsyncIterator[Bench]:
    """agentur in process (fresh data dir, the bench's files uploaded and indexed) against the
    model server at `base_url`; the slow test tier runs its tasks through this too."""
    settings = Settings(data_dir=data_dir)
    # A CPU server may read a prompt for minutes before the first token; a retry would only
    # start that over, so the bench waits instead.
    ai_settings = AiSettings(
        allow_unpriced_models=True,
        request_timeout_seconds=call_seconds,
        stream_idle_timeout_seconds=call_seconds,
        max_retries=0,
    )
    server = OpenAICompatibleServerSettings(
        openai_compatible_base_url=base_url,
        openai_compatible_models=model,
        # the server's real context and a bound on each answer, when the caller knows them
        **{f"openai_compatible_{name}": value for name, value in (limits or {}).items()},
    )
    runtime = Runtime.from_settings(
        AllSettings.from_environment(settings, ai=ai_settings, openai_compatible_server=server)
    )
    try:
        headers = await setup(runtime)
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://agentur.bench", timeout=None
        ) as client:
            for name, text in FILES.items():
                uploaded = await client.post(
                    "/v1/files",
                    headers=headers,
                    data={"scope": "mandate"},
                    files={"file": (name, text.encode(), "text/plain")},
                )
                # Indexed now (hybrid search where an embedding model answers), as the
                # background worker would, which an in-process client does not start.
                await knowledge_store(runtime).indexer.index_file(
                    uploaded.raise_for_status().json()["id"]
                )
            bench = Bench(client, runtime, headers)
            count_usage(runtime, lambda: bench)
            yield bench
    finally:
        await runtime.close()

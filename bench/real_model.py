"""Agentur end to end against a real model behind any OpenAI-compatible server.

A fixed set of agent tasks (list and read a file, write a file, answer from a file, refuse to
invent, answer a German question in German, copy a file named instead of its id, write a file
from a document) and visitor questions (FAQ, paraphrase, fact only in a document, out of scope,
person request, de/fr/it/en) run in process through the HTTP API (a fresh SQLite data dir, files
uploaded like a user would). Per task it prints success, model calls, prompt and cached
tokens, the first call's prompt tokens and seconds, HTTP 400 answers and wall time; then the
totals per group and the load average.

    python bench/real_model.py http://127.0.0.1:8080/v1 [--model NAME] [--only agent|visitor|TEXT]

Not part of CI (it needs a running model server). Success checks are deliberately simple
string checks on the answer, the decision path and the workspace, stated per task below.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
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
from agentur.ai.settings import AiSettings
from agentur.api.app import create_app
from agentur.config import Settings
from agentur.context import Role
from agentur.detect_language import clear_language_name
from agentur.knowledge.store import knowledge_store
from agentur.runtime import Runtime

FILES = {
    "notes.txt": "Project Alpenblick kick-off\nBudget: CHF 48,000\nOwner: Mara Keller\n",
    "hours.md": "# Opening hours\n\nThe Lenzburg shop is open Monday to Friday 8:00 to 18:30 "
    "and Saturday 9:00 to 16:00. It is closed on Sundays and public holidays.\n",
}
RETURNS = "You can return any item within 30 days; use the return label in the parcel."
CHEESE = "If cheese arrives damaged, send us a photo within 48 hours and we refund the full price."
DEFINITION: dict[str, Any] = {
    "name": "Cheese shop",
    "instructions": "You help visitors of the Lenzburg cheese shop.",
    "languages": ["en", "de", "fr", "it"],
    "faqs": [
        {
            "id": "returns",
            "question": "How can I return an item?",
            "variants": ["Can I send something back?"],
            "keywords": ["return"],
            "answer": RETURNS,
        },
        {
            "id": "damaged",
            "question": "What if my cheese arrives damaged?",
            "variants": ["The cheese was broken when it arrived"],
            "keywords": ["damaged"],
            "answer": CHEESE,
        },
    ],
    "help_desks": [
        {
            "id": "support",
            "name": "Customer support",
            "options": [{"kind": "email", "label": "E-mail", "address": "help@example.test"}],
        }
    ],
}
PHONE = re.compile(r"\+?\d[\d ]{7,}\d")


@dataclass
class Usage:
    """What the model server was asked, counted at the provider (every call of a task)."""

    calls: int = 0
    prompt: int = 0
    cached: int = 0
    first_prompt: int = 0  # the task's first call: prompt tokens and seconds to its end
    first_seconds: float = 0.0
    http_400: int = 0

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
    temperature: float | None = None  # of each agent run; None: the server's default
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
            bench().usage.http_400 += getattr(error, "status_code", None) == 400
            raise

    async def counted_complete(spec: Any, request: Any) -> AiResponse:
        started = time.perf_counter()
        try:
            response = await complete(spec, request)
        except Exception as error:
            bench().usage.http_400 += getattr(error, "status_code", None) == 400
            raise
        bench().usage.add(response, time.perf_counter() - started)
        return response

    provider.stream, provider.complete = counted_stream, counted_complete  # type: ignore[method-assign]


# --- agent tasks ------------------------------------------------------------------------------


async def agent(bench: Bench, prompt: str) -> dict[str, Any]:
    response = await bench.client.post(
        "/v1/agent/runs",
        json={
            "prompt": prompt,
            "config": {"max_rounds": bench.max_rounds, "temperature": bench.temperature},
        },
        headers=bench.headers,
    )
    response.raise_for_status()
    return response.json()


async def file_text(bench: Bench, name: str) -> str | None:
    listed = await bench.client.get("/v1/files", params={"search": name}, headers=bench.headers)
    for item in listed.raise_for_status().json()["items"]:
        if item["name"] == name:
            url = f"/v1/files/{item['id']}/content"
            return (await bench.client.get(url, headers=bench.headers)).text
    return None


def agent_tasks(bench: Bench) -> list[tuple[str, Callable[[], Awaitable[tuple[bool, str]]]]]:
    async def list_and_read() -> tuple[bool, str]:
        run = await agent(bench, "Which files do I have? Read notes.txt and tell me its owner.")
        return run["status"] == "completed" and "Mara Keller" in run["final_text"], _note(run)

    async def write_file() -> tuple[bool, str]:
        run = await agent(
            bench,
            "Create a file named summary.txt with exactly this text: Meeting moved to Friday.",
        )
        text = await file_text(bench, "summary.txt")
        return text is not None and "Meeting moved to Friday" in text, _note(run)

    async def answer_from_file() -> tuple[bool, str]:
        run = await agent(
            bench, "According to my file hours.md, when is the shop open on Saturday?"
        )
        final = run["final_text"]
        return run["status"] == "completed" and "16" in final and "9" in final, _note(run)

    async def refuse_to_invent() -> tuple[bool, str]:
        run = await agent(bench, "What is the phone number of our Geneva branch, per my files?")
        return run["status"] == "completed" and not PHONE.search(run["final_text"]), _note(run)

    async def german_answer() -> tuple[bool, str]:
        run = await agent(
            bench, "Wer leitet laut notes.txt das Projekt Alpenblick und wie hoch ist das Budget?"
        )
        final = run["final_text"]
        german = clear_language_name(final) == "German"
        facts = "Mara Keller" in final and "48" in final
        return run["status"] == "completed" and facts and german, _note(run)

    async def copy_by_name() -> tuple[bool, str]:
        run = await agent(bench, "Create a folder named Archiv and copy notes.txt into it.")
        folders = await bench.client.get("/v1/folders", headers=bench.headers)
        archive = [f for f in folders.raise_for_status().json() if f["name"] == "Archiv"]
        copied = False
        if archive:
            listed = await bench.client.get(
                "/v1/files", params={"folder_id": archive[0]["id"]}, headers=bench.headers
            )
            copied = any("notes" in f["name"] for f in listed.raise_for_status().json()["items"])
        return copied, _note(run)

    async def write_from_document() -> tuple[bool, str]:
        run = await agent(
            bench,
            "Read hours.md and write the Saturday opening hours into a new file saturday.txt.",
        )
        text = await file_text(bench, "saturday.txt")
        return text is not None and "16" in text, _note(run)

    return [
        ("agent: list and read", list_and_read),
        ("agent: write a file", write_file),
        ("agent: answer from a file", answer_from_file),
        ("agent: refuse to invent", refuse_to_invent),
        ("agent: German answer", german_answer),
        ("agent: copy by name", copy_by_name),
        ("agent: write from a document", write_from_document),
    ]


def _note(run: dict[str, Any]) -> str:
    return f"{run['status']}/{run['rounds']}r: {' '.join(run['final_text'].split())}"


# --- visitor questions ------------------------------------------------------------------------


async def visitor_tasks(
    bench: Bench,
) -> list[tuple[str, Callable[[], Awaitable[tuple[bool, str]]]]]:
    created = await bench.client.post("/v1/assistants", json=DEFINITION, headers=bench.headers)
    created.raise_for_status()
    assistant = created.json()["id"]
    key = await bench.client.post(f"/v1/assistants/{assistant}/visitor-keys", headers=bench.headers)
    visitor = {"Authorization": f"Bearer {key.raise_for_status().json()['key']}"}

    async def ask(text: str) -> dict[str, Any]:
        # A fresh conversation per question, so one answer's language cannot carry over.
        started = await bench.client.post(
            f"/v1/assistants/{assistant}/conversations", headers=visitor
        )
        body = started.raise_for_status().json()
        headers = {**visitor, "X-Conversation-Token": body["token"]}
        said = await bench.client.post(
            f"/v1/assistants/{assistant}/conversations/{body['id']}/messages",
            json={"text": text},
            headers=headers,
        )
        return said.raise_for_status().json()

    def check(
        text: str, ok: Callable[[dict[str, Any]], bool]
    ) -> Callable[[], Awaitable[tuple[bool, str]]]:
        async def task() -> tuple[bool, str]:
            answer = await ask(text)
            path = ",".join(answer["decision_path"][1:])
            cited = ",".join(s.get("file") or s.get("faq_id") or "?" for s in answer["sources"])
            return ok(answer), f"{path} [{cited}]: {' '.join(answer['answer'].split())}"

        return task

    def from_hours(language: str) -> Callable[[dict[str, Any]], bool]:
        return lambda a: (
            a["language"] == language
            and "16" in a["answer"]
            and any(s.get("file") == "hours.md" for s in a["sources"])
        )

    def refuses(a: dict[str, Any]) -> bool:
        offered = any(x.get("type") == "offer_escalation" for x in a["actions"])
        return (
            offered
            or not any(s.get("file") for s in a["sources"])
            and "yes" not in a["answer"].lower()
        )

    return [
        (
            "visitor: FAQ",
            check("How can I return an item?", lambda a: "faq:returns" in a["decision_path"]),
        ),
        (
            "visitor: paraphrase",
            check(
                "If the cheese arrives damaged, can I get my money back?",
                lambda a: "faq:damaged" in a["decision_path"],
            ),
        ),
        ("visitor: fact in a document", check("When are you open on Saturday?", from_hours("en"))),
        ("visitor: out of scope", check("Do you sell garden furniture?", refuses)),
        (
            "visitor: person request",
            check(
                "I want to talk to a person.",
                lambda a: "escalation_menu" in a["decision_path"] and a["language"] == "en",
            ),
        ),
        ("visitor: de", check("Wann haben Sie am Samstag geöffnet?", from_hours("de"))),
        ("visitor: fr", check("Quand êtes-vous ouverts le samedi ?", from_hours("fr"))),
        ("visitor: it", check("Quando siete aperti il sabato?", from_hours("it"))),
        ("visitor: en", check("What are your Saturday opening hours?", from_hours("en"))),
    ]


# --- setup and report -------------------------------------------------------------------------


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
    # start that over, so the bench waits instead (issue 12 has the proper limits).
    ai_settings = AiSettings(
        openai_compatible_base_url=base_url,
        openai_compatible_models=model,
        allow_unpriced_models=True,
        request_timeout_seconds=call_seconds,
        stream_idle_timeout_seconds=call_seconds,
        max_retries=0,
        # the server's real context and a bound on each answer, when the caller knows them
        **{f"openai_compatible_{name}": value for name, value in (limits or {}).items()},
    )
    runtime = Runtime.from_settings(settings, ai_settings)
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


async def main(
    base_url: str, model: str | None, only: str | None, data_dir: Path, call_seconds: float = 900.0
) -> None:
    async with running_bench(base_url, model, data_dir, call_seconds) as bench:
        models = [m.id for m in bench.runtime.ai.models()]
        print(f"model(s): {', '.join(models)}   load average: {os.getloadavg()}")
        print(
            f"     {'task':<26} {'calls':>3} {'prompt':>8} {'cached':>8} {'first':>6} "
            f"{'1st s':>7} {'400':>3} {'time':>9}  answer"
        )
        tasks = agent_tasks(bench) + await visitor_tasks(bench)
        tasks = [(name, task) for name, task in tasks if only is None or only in name]
        for name, task in tasks:
            await bench.measure(name, task)
    ok = sum(r.ok for r in bench.results)
    prompt = sum(r.usage.prompt for r in bench.results)
    cached = sum(r.usage.cached for r in bench.results)
    seconds = sum(r.seconds for r in bench.results)
    http_400 = sum(r.usage.http_400 for r in bench.results)
    firsts = [r.usage for r in bench.results if r.name.startswith("agent") and r.usage.calls]
    first = (
        f"agent first round: prompt {max(u.first_prompt for u in firsts)} tokens at most, "
        f"{sum(u.first_seconds for u in firsts) / len(firsts):.0f} s on average; "
        if firsts
        else ""
    )
    for group in ("agent", "visitor"):
        done = [r for r in bench.results if r.name.startswith(group)]
        if done:
            print(f"{group}: {sum(r.ok for r in done)}/{len(done)}")
    print(
        f"\n{ok}/{len(bench.results)} tasks succeeded; HTTP 400: {http_400}; {first}"
        f"prompt tokens {prompt}, cached {cached}; {seconds:.0f} s in total; "
        f"load average now {os.getloadavg()}"
    )


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "base_url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1"
    )
    parser.add_argument("--model", help="model name (default: the server's GET /models)")
    parser.add_argument(
        "--only", help="run the tasks whose name contains this, e.g. agent, visitor, 'from a file'"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds a model call may take (900)"
    )
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse()
    with tempfile.TemporaryDirectory(prefix="agentur-real-model-") as directory_name:
        asyncio.run(
            main(
                arguments.base_url,
                arguments.model,
                arguments.only,
                Path(directory_name),
                arguments.timeout,
            )
        )

"""The load client of `bench/load.py` and `bench/scale_out.py`: a locustfile whose virtual
users send agentur's mixed traffic and write one JSON line per request.

    AGENTUR_LOAD_PLAN=plan.json AGENTUR_LOAD_OUT=dir \
        locust -f bench/load_traffic.py --headless --processes 2 -u N -r N -t 60s ...

(`bench/load_setup.run_traffic` writes the plan and starts it.) The plan names groups of
clients — `{tenant: {name, key, assistant_id}, clients, routes: {route: weight}, once}` — and
a request budget; each group becomes a user class with exactly `clients` users. A user of a
`once` group sends one request and stops; the others loop until the time is up or the budget
is spent. Each line: route, tenant, HTTP status (0 for a transport error), milliseconds to
the last byte (an SSE stream read to its end), whether a 429/503 carried a valid
`Retry-After`, the agent run id and the stream's last event.

Why locust's FastHttpUser (geventhttpclient) and not httpx on asyncio: measured on this 2-core
machine against nginx serving a 2 KB file, client CPU per request was 0.34 ms for
FastHttpUser with 200 users (10,915 requests in 15 s), 1.07 ms for locust's requests-based
HttpUser, and 3.6 ms (50 concurrent) to 5.2 ms (200 concurrent) for httpx 0.29's
AsyncClient — whose connection pool costs grow with the number of connections. httpx would
take a core of the two to drive 200 clients and measure itself; FastHttpUser held 200
concurrent SSE streams (1.5 ms CPU per 10-event stream).
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import time
import uuid
from pathlib import Path
from typing import Any

from locust import FastHttpUser, constant
from locust.exception import StopUser

PLAN = json.loads(Path(os.environ["AGENTUR_LOAD_PLAN"]).read_text())
OUT = Path(os.environ["AGENTUR_LOAD_OUT"])
QUERIES = [
    "Wie lange gilt die Garantie?",
    "Rückgabe innerhalb von 30 Tagen",
    "Lieferzeit in die Schweiz",
    "Aufzugsanlagen in hohen Gebäuden",
    "Rechnung per E-Mail",
    "Öffnungszeiten am Samstag",
]
DOCUMENT = """# Kundenhandbuch {n}

## Garantie

Die Garantie gilt zwei Jahre ab Kaufdatum; Verschleissteile sind ausgenommen.

## Rückgabe

Artikel können innerhalb von 30 Tagen zurückgegeben werden ({n}).
"""


class Lines:
    """This process's JSON lines (opened after locust forked its processes)."""

    file = None
    sent = 0

    @classmethod
    def write(cls, fields: dict[str, Any]) -> None:
        if cls.file is None:
            cls.file = (OUT / f"requests-{os.getpid()}.jsonl").open("a", buffering=1)
        cls.file.write(json.dumps(fields) + "\n")


def retry_after_ok(value: str | None) -> bool:
    if value is None:
        return False
    if value.strip().isdigit():
        return True
    try:
        return email.utils.parsedate_to_datetime(value) is not None
    except (TypeError, ValueError):
        return False


def outcome(response: Any, **extra: Any) -> dict[str, Any]:
    status = response.status_code or 0
    fields: dict[str, Any] = {"status": status, **extra}
    if status in (429, 503):
        fields["retry_after"] = retry_after_ok(response.headers.get("retry-after"))
    if status >= 400 or status == 0:
        error = getattr(response, "error", None)
        fields["detail"] = str(error)[:200] if error else (response.text or "")[:200]
    return fields


class AgenturUser(FastHttpUser):
    abstract = True
    wait_time = constant(0)
    network_timeout = 180.0
    connection_timeout = 30.0
    group: dict[str, Any]

    def on_start(self) -> None:
        self.rng = random.Random()
        self.conversation: str | None = None
        self.auth = {"Authorization": f"Bearer {self.group['tenant']['key']}"}
        self.routes = list(self.group["routes"])
        self.weights = list(self.group["routes"].values())

    def step(self) -> None:
        budget = PLAN["max_requests"]
        if Lines.sent >= budget:
            raise StopUser
        Lines.sent += 1
        route = self.rng.choices(self.routes, self.weights)[0]
        started = time.perf_counter()
        fields: dict[str, Any] = {"route": route, "tenant": self.group["tenant"]["name"]}
        fields |= getattr(self, route)()
        fields["ms"] = (time.perf_counter() - started) * 1000
        fields["at"] = time.time()
        Lines.write(fields)
        if self.group.get("once"):
            raise StopUser

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        headers = {**self.auth, **kwargs.pop("headers", {})}
        return self.client.request(method, path, headers=headers, name=path, **kwargs)

    # ------------------------------------------------------------------ routes

    def files_list(self) -> dict[str, Any]:
        return outcome(self.request("GET", "/v1/files?limit=50"))

    def upload(self) -> dict[str, Any]:
        name = f"handbuch-{uuid.uuid4().hex[:10]}.md"
        boundary = uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"'
            f"\r\nContent-Type: text/markdown\r\n\r\n{DOCUMENT.format(n=name)}\r\n"
            f"--{boundary}--\r\n"
        ).encode()
        response = self.request(
            "POST",
            "/v1/files",
            data=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        extra = {"file_id": response.json().get("id")} if response.status_code == 201 else {}
        return outcome(response, **extra)

    def search(self) -> dict[str, Any]:
        query = {"query": self.rng.choice(QUERIES), "limit": 10}
        return outcome(self.request("POST", "/v1/knowledge/search", json=query))

    def visitor_message(self) -> dict[str, Any]:
        assistant = self.group["tenant"]["assistant_id"]
        if self.conversation is None:
            started = self.request("POST", f"/v1/assistants/{assistant}/conversations", json={})
            if started.status_code != 201 and started.status_code != 200:
                return outcome(started, step="start conversation")
            self.conversation = started.json()["id"]
        path = f"/v1/assistants/{assistant}/conversations/{self.conversation}/messages"
        return outcome(self.request("POST", path, json={"text": self.rng.choice(QUERIES)}))

    def agent_run(self) -> dict[str, Any]:
        """Streamed over SSE and read to the end; the stream's last event is kept."""
        response = self.request(
            "POST",
            "/v1/agent/runs",
            json={"prompt": "Fasse die Rückgabebedingungen in einem Satz zusammen."},
            headers={"Accept": "text/event-stream"},
            stream=True,
        )
        run_id = response.headers.get("x-agent-run-id") if response.headers else None
        if response.status_code != 200:
            return outcome(response, run_id=run_id)
        last, buffer = None, ""
        try:
            for chunk in response.iter_content(chunk_size=4096, decode_content=True):
                buffer += chunk if isinstance(chunk, str) else chunk.decode(errors="replace")
                *lines, buffer = buffer.split("\n")
                last = next(
                    (ln[6:].strip() for ln in reversed(lines) if ln.startswith("event:")), last
                )
        except Exception as error:  # noqa: BLE001 - a cut stream is a result, not a crash
            return {"status": 0, "run_id": run_id, "last_event": last, "detail": str(error)[:200]}
        return outcome(response, run_id=run_id, last_event=last)

    def openai_call(self) -> dict[str, Any]:
        body = {
            "model": PLAN["model"],
            "messages": [{"role": "user", "content": self.rng.choice(QUERIES)}],
            "max_tokens": 64,
        }
        return outcome(self.request("POST", "/openai/v1/chat/completions", json=body))


for _index, _group in enumerate(PLAN["groups"]):
    globals()[f"Group{_index}"] = type(
        f"Group{_index}",
        (AgenturUser,),
        {"fixed_count": _group["clients"], "group": _group, "tasks": [AgenturUser.step]},
    )

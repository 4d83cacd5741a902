"""A loopback ClickUp speaking API v2 as documented: the personal token as the whole
Authorization header, list tasks paged by `page` with `last_page`, and error bodies
`{"err": "...", "ECODE": "..."}`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.connections.json_server import JsonHandler, serving

CLICKUP_TOKEN = "pk_4711_SECRETTOKEN"
PAGE_SIZE = 100  # ClickUp's fixed page size

TASKS = [
    {"id": f"t{n}", "name": f"Task {n}", "status": {"status": "open"},
     "assignees": [{"username": "bea"}], "due_date": None,
     "url": f"https://app.clickup.com/t/t{n}", "text_content": f"Details of task {n}"}
    for n in range(1, 151)
]  # fmt: skip


@dataclass
class ClickUpState:
    comments: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def clickup_server() -> Iterator[tuple[str, ClickUpState]]:
    state = ClickUpState()

    class Handler(JsonHandler):
        def _authorized(self) -> bool:
            if self.headers.get("authorization") == CLICKUP_TOKEN:
                return True
            self.reply(401, {"err": "Token invalid", "ECODE": "OAUTH_025"})
            return False

        def _task(self, task_id: str) -> dict[str, Any] | None:
            return next((task for task in TASKS if task["id"] == task_id), None)

        def do_GET(self) -> None:  # noqa: N802
            if not self._authorized():
                return
            url = urlsplit(self.path)
            parts = url.path.split("/")
            if url.path == "/api/v2/user":
                self.reply(200, {"user": {"id": 1, "username": "ann"}})
            elif parts[-3:-1] == ["list", "901"] and parts[-1] == "task":
                page = int(parse_qs(url.query).get("page", ["0"])[0])
                chunk = TASKS[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
                last = (page + 1) * PAGE_SIZE >= len(TASKS)
                self.reply(200, {"tasks": chunk, "last_page": last})
            elif parts[-2] == "task" and (task := self._task(parts[-1])) is not None:
                self.reply(200, task)
            else:
                self.reply(404, {"err": "Task not found, deleted", "ECODE": "ITEM_013"})

        def do_POST(self) -> None:  # noqa: N802
            if not self._authorized():
                return
            body = self.body()
            parts = urlsplit(self.path).path.split("/")
            if parts[-1] != "comment" or self._task(parts[-2]) is None:
                self.reply(404, {"err": "Task not found, deleted", "ECODE": "ITEM_013"})
                return
            state.comments.append({"task_id": parts[-2], **body})
            self.reply(200, {"id": 458, "hist_id": "26508", "date": 1568036964079})

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}/api/v2/", state

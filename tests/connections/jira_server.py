"""A loopback Jira Cloud speaking REST v3 as documented: basic auth (e-mail + API token),
`/search/jql` with `nextPageToken`/`isLast`, issues with Atlassian Document Format bodies,
and Jira's error bodies `{"errorMessages": [...], "errors": {...}}`."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.connections.json_server import JsonHandler, serving

JIRA_EMAIL = "ann@acme.test"
JIRA_TOKEN = "jira-Token-9921"


def adf(*paragraphs: str) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": text}]} for text in paragraphs
    ]}  # fmt: skip


ISSUES = [
    {
        "key": f"OPS-{n}",
        "fields": {
            "summary": f"Printer {n} jammed",
            "status": {"name": "Open" if n % 2 else "Done"},
            "issuetype": {"name": "Task"},
            "assignee": {"displayName": "Bea"} if n == 1 else None,
            "updated": "2026-11-30T10:00:00.000+0000",
            "description": adf(f"Printer {n} on floor 2", "Needs toner"),
            "comment": {"comments": [{"author": {"displayName": "Bea"},
                                      "created": "2026-11-30T11:00:00.000+0000",
                                      "body": adf("Ordered toner")}]},
        },
    }
    for n in range(1, 6)
]  # fmt: skip


@dataclass
class JiraState:
    comments: list[dict[str, Any]] = field(default_factory=list)
    search_queries: list[dict[str, list[str]]] = field(default_factory=list)


@contextmanager
def jira_server() -> Iterator[tuple[str, JiraState]]:
    state = JiraState()
    expected = "Basic " + base64.b64encode(f"{JIRA_EMAIL}:{JIRA_TOKEN}".encode()).decode()

    class Handler(JsonHandler):
        def _error(self, status: int, messages: list[str], errors: dict | None = None) -> None:
            self.reply(status, {"errorMessages": messages, "errors": errors or {}})

        def _authorized(self) -> bool:
            if self.headers.get("authorization") == expected:
                return True
            self._error(401, ["Client must be authenticated to access this resource."])
            return False

        def _issue(self, key: str) -> dict[str, Any] | None:
            return next((issue for issue in ISSUES if issue["key"] == key), None)

        def do_GET(self) -> None:  # noqa: N802
            if not self._authorized():
                return
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == "/rest/api/3/myself":
                self.reply(200, {"emailAddress": JIRA_EMAIL, "displayName": "Ann"})
            elif url.path == "/rest/api/3/search/jql":
                state.search_queries.append(query)
                jql = query.get("jql", [""])[0]
                if "bogus" in jql:
                    self._error(400, ["Error in the JQL Query: 'bogus' is not a field."])
                    return
                start = int(query.get("nextPageToken", ["0"])[0])
                size = int(query.get("maxResults", ["50"])[0])
                page = ISSUES[start : start + size]
                last = start + size >= len(ISSUES)
                data: dict[str, Any] = {"issues": page, "isLast": last}
                if not last:
                    data["nextPageToken"] = str(start + size)
                self.reply(200, data)
            elif url.path.startswith("/rest/api/3/issue/"):
                issue = self._issue(url.path.rsplit("/", 1)[1])
                if issue is None:
                    self._error(
                        404, ["Issue does not exist or you do not have permission to see it."]
                    )
                else:
                    self.reply(200, issue)
            else:
                self._error(404, ["not found"])

        def do_POST(self) -> None:  # noqa: N802
            if not self._authorized():
                return
            body = self.body()
            parts = urlsplit(self.path).path.split("/")
            if parts[-1] != "comment" or self._issue(parts[-2]) is None:
                self._error(404, ["Issue does not exist or you do not have permission to see it."])
                return
            if not (body.get("body") or {}).get("content"):
                self._error(400, [], {"comment": "Comment body can not be empty!"})
                return
            state.comments.append({"key": parts[-2], "body": body["body"]})
            self.reply(201, {"id": str(10000 + len(state.comments)),
                             "created": "2026-12-01T12:00:00.000+0000"})  # fmt: skip

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}", state

"""The plumbing the loopback REST services (Jira, ClickUp) share: JSON replies and a threaded
server on 127.0.0.1, port 0."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.serve_in_thread import serve_in_thread


class JsonHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def reply(self, status: int, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """Yields the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with serve_in_thread(server):
        yield server.server_address[1]

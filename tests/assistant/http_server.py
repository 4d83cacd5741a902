"""A real HTTP server on 127.0.0.1 (port 0, own thread) that records every request it gets."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.serve_in_thread import serve_in_thread


@dataclass
class Recorded:
    requests: list[dict[str, object]] = field(default_factory=list)
    redirect_target: str = ""


@contextmanager
def recording_server() -> Iterator[tuple[str, Recorded]]:
    recorded = Recorded()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def _record(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            recorded.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body,
                }
            )

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for key, value in (headers or {"content-type": "application/json"}).items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802
            self._record()
            if self.path.startswith("/api/orders/"):
                order = self.path.rsplit("/", 1)[1]
                self._send(
                    200,
                    json.dumps({"order": order, "status": "shipped", "pad": "x" * 100}).encode(),
                )
            elif self.path == "/api/big":
                self._send(200, b"y" * 5_000)
            elif self.path == "/api/away":
                self._send(302, b"", {"location": recorded.redirect_target})
            elif self.path == "/api/moved":
                self._send(302, b"", {"location": "/api/orders/77"})
            elif self.path == "/api/slow":
                time.sleep(1.0)
                self._send(200, b"{}")
            else:
                self._send(404, b'{"error": "no"}')

        def do_POST(self) -> None:  # noqa: N802
            self._record()
            self._send(201, b'{"ok": true}')

    class QuietServer(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # a client that timed out on /api/slow closes early; that is the point

    server = QuietServer(("127.0.0.1", 0), Handler)
    with serve_in_thread(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", recorded

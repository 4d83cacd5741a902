"""A real HTTP server on 127.0.0.1 that records what it received and answers from a script.

The wire format lives in the reply builders (`openai_replies`, `anthropic_replies`, …); this
server only knows HTTP: JSON bodies, SSE streams sent with chunked encoding (so a stream that
is cut off is a real protocol error for the client), error statuses with headers, slow replies.
It runs `http.server` in a daemon thread so it works from sync and async tests alike, on any
event loop.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    method: str
    path: str  # without the query string
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes
    json: Any  # the parsed body, or None when it is not JSON


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer. `events` set means an SSE stream (chunked transfer encoding)."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    events: tuple[bytes, ...] | None = None
    # Cut the connection (no terminating chunk) after this many events.
    break_after_events: int | None = None
    # Wait this long before sending anything (to trigger client timeouts).
    delay_seconds: float = 0.0
    # Wait this long between SSE events (to trigger read timeouts mid-stream).
    event_delay_seconds: float = 0.0

    @classmethod
    def json(
        cls, payload: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> Reply:
        return cls(
            status=status,
            body=json.dumps(payload).encode(),
            headers={"content-type": "application/json", **(headers or {})},
        )

    @classmethod
    def error(cls, payload: Any, *, status: int, retry_after: str | float | None) -> Reply:
        """A vendor's JSON error body, with `retry-after` when given."""
        headers = {} if retry_after is None else {"retry-after": str(retry_after)}
        return cls.json(payload, status=status, headers=headers)

    @classmethod
    def sse(
        cls,
        events: Iterable[Any],
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Each item: a dict (`data: <json>`), an `(event_name, dict)` pair, or a raw string
        such as `"[DONE]"` (sent as `data: [DONE]`)."""
        return cls(
            status=status,
            events=tuple(_sse_frame(item) for item in events),
            headers={"content-type": "text/event-stream", **(headers or {})},
        )

    def delayed(self, seconds: float) -> Reply:
        return replace(self, delay_seconds=seconds)

    def broken_after(self, events: int) -> Reply:
        return replace(self, break_after_events=events)

    def stalled(self, seconds_between_events: float) -> Reply:
        return replace(self, event_delay_seconds=seconds_between_events)


def _sse_frame(item: Any) -> bytes:
    if isinstance(item, tuple):
        name, data = item
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
    if isinstance(item, str):
        return f"data: {item}\n\n".encode()
    return f"data: {json.dumps(item)}\n\n".encode()


ReplyStep = Reply | Callable[[ReceivedRequest], Reply]


class WireServer:
    """`server.enqueue(reply, …)`, point an adapter at `server.base_url`, then inspect
    `server.received` / `server.last`. Replies are used in order; a callable step gets the
    received request (to answer based on it). With the queue empty `default_reply` answers,
    or a 400 naming the unscripted request."""

    def __init__(self, name: str, base_path: str = "") -> None:
        self.name = name
        self.base_path = base_path
        self.received: list[ReceivedRequest] = []
        # Per streamed reply, how many of its events were written before it ended (fewer
        # than it has when the client closed the connection early).
        self.events_written: list[int] = []
        self.default_reply: ReplyStep | None = None
        self._queue: deque[ReplyStep] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> WireServer:
        handler = type("Handler", (_Handler,), {"wire": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        # Slow replies must not hold up shutdown.
        httpd.block_on_close = False  # type: ignore[attr-defined]
        self._httpd = httpd
        # A short poll interval keeps `stop()` (and so each test teardown) fast.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=f"wire-{self.name}"
        )
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- addresses -----------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The URL an adapter takes as its base URL (vendor convention, e.g. `…/v1`)."""
        return self.url + self.base_path

    # -- script and record ---------------------------------------------------------------
    def enqueue(self, *replies: ReplyStep) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def last(self) -> ReceivedRequest:
        with self._lock:
            assert self.received, f"wire server {self.name} received no request"
            return self.received[-1]

    def _take(self, request: ReceivedRequest) -> Reply:
        with self._lock:
            self.received.append(request)
            step = self._queue.popleft() if self._queue else self.default_reply
        if step is None:
            message = f"wire server {self.name}: no scripted reply for {request.path}"
            return Reply.json({"error": {"message": message}}, status=400)
        return step(request) if callable(step) else step


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wire: WireServer

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = None
        split = urlsplit(self.path)
        request = ReceivedRequest(
            method=self.command,
            path=split.path,
            query=dict(parse_qsl(split.query)),
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            json=parsed,
        )
        reply = self.wire._take(request)
        try:
            if reply.delay_seconds and self.wire._stopping.wait(reply.delay_seconds):
                return
            if reply.events is None:
                self._send_body(reply)
            else:
                self._send_stream(reply)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout test); nothing left to do.
            self.close_connection = True

    def _send_headers(self, reply: Reply, extra: Mapping[str, str]) -> None:
        self.send_response(reply.status)
        for name, value in {**reply.headers, **extra}.items():
            self.send_header(name, value)
        self.end_headers()

    def _send_body(self, reply: Reply) -> None:
        self._send_headers(reply, {"content-length": str(len(reply.body))})
        self.wfile.write(reply.body)
        self.wfile.flush()

    def _send_stream(self, reply: Reply) -> None:
        assert reply.events is not None
        self._send_headers(reply, {"transfer-encoding": "chunked"})
        written = 0
        try:
            for position, frame in enumerate(reply.events):
                if reply.break_after_events is not None and position >= reply.break_after_events:
                    self._cut_connection()
                    return
                if (
                    position
                    and reply.event_delay_seconds
                    and self.wire._stopping.wait(reply.event_delay_seconds)
                ):
                    return
                self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                self.wfile.flush()
                written += 1
        finally:
            self.wire.events_written.append(written)
        if reply.break_after_events is not None:
            self._cut_connection()
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _cut_connection(self) -> None:
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

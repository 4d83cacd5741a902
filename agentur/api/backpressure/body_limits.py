"""Request body limits, enforced before a body is read.

Every route has one (see `body_limit`): small for the sign-in and session routes (they take a
key, nothing more, and answer callers without one), the upload limit for the multipart upload
routes, a larger one for `/openai/v1` (messages may carry images as data URLs), and
`AGENTUR_MAX_BODY_BYTES` for everything else. A declared `Content-Length` above the limit is
answered 413 at once, without reading a byte of the body, and the connection is closed so the
server does not read the rest either; a body without one (chunked) is counted while it arrives
and refused once it passes the limit. Whatever the route would have answered to the cut-off
body is replaced by the 413.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agentur.api.openai_compatible.errors import error_body
from agentur.api.problems import PROBLEM_JSON
from agentur.config import Settings

Scope = dict[str, Any]
Message = dict[str, Any]

# Multipart framing around an upload's file part (boundaries, part headers, form fields).
MULTIPART_OVERHEAD = 64 * 1024
SIGN_IN_PREFIX = "/v1/sessions"
MODEL_PREFIX = "/openai/v1/"
UPLOAD_ROUTES = re.compile(r"/v1/files|/v1/features/instances/[^/]+/tables/[^/]+/import")


@dataclass(frozen=True, slots=True)
class BodyLimit:
    max_bytes: int
    detail: str  # what the 413 says


def _limit(max_bytes: int, setting: str) -> BodyLimit:
    return BodyLimit(max_bytes, f"the request body is larger than {max_bytes} bytes ({setting})")


def body_limit(path: str, settings: Settings) -> BodyLimit:
    if path.startswith(SIGN_IN_PREFIX):
        return _limit(settings.max_sign_in_body_bytes, "AGENTUR_MAX_SIGN_IN_BODY_BYTES")
    if UPLOAD_ROUTES.fullmatch(path):
        # The file's exact limit is the blob store's; here the file plus the form's framing.
        upload = settings.max_upload_bytes
        detail = f"the upload is larger than {upload} bytes (AGENTUR_MAX_UPLOAD_BYTES)"
        return BodyLimit(upload + MULTIPART_OVERHEAD, detail)
    if path.startswith(MODEL_PREFIX):
        return _limit(settings.max_model_body_bytes, "AGENTUR_MAX_MODEL_BODY_BYTES")
    return _limit(settings.max_body_bytes, "AGENTUR_MAX_BODY_BYTES")


class BodyTooLarge(Exception):
    """Raised into the app by `receive` once the body passes its limit."""


def too_large_response(path: str, limit: BodyLimit) -> tuple[dict[str, str], bytes]:
    """Headers and body of the 413 (OpenAI's error shape under `/openai/v1`)."""
    if path.startswith(MODEL_PREFIX):
        payload: dict[str, Any] = error_body(413, limit.detail, None, "request_too_large")
        media_type = "application/json"
    else:
        payload = {"type": "about:blank", "title": "Content too large", "status": 413}
        payload["detail"] = limit.detail
        media_type = PROBLEM_JSON
    # The unread rest of the body would otherwise be read (and dropped) by the server.
    return {"content-type": media_type, "connection": "close"}, json.dumps(payload).encode()


class BodyLimitMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared, chunked = _framing(scope)
        if declared is None and not chunked:  # no body (GET, DELETE, …): nothing to count
            await self.app(scope, receive, send)
            return
        settings: Settings = scope["app"].state.runtime.settings
        limit = body_limit(scope["path"], settings)
        if declared is not None and declared > limit.max_bytes:
            await _answer(send, *too_large_response(scope["path"], limit))
            return
        received = 0
        exceeded = False
        answered = False

        async def counted() -> Message:
            nonlocal received, exceeded
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit.max_bytes:
                    exceeded = True
                    raise BodyTooLarge
            return message

        async def unless_exceeded(message: Message) -> None:
            nonlocal answered
            if exceeded:
                return  # the route's answer to a body cut short; the 413 replaces it
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, unless_exceeded)
        except BodyTooLarge:
            pass
        except Exception:
            if not exceeded:
                raise
        if exceeded and not answered:
            await _answer(send, *too_large_response(scope["path"], limit))


def _framing(scope: Scope) -> tuple[int | None, bool]:
    """The declared `Content-Length`, and whether the body comes chunked (HTTP/1.1: a request
    with neither has no body)."""
    declared, chunked = None, False
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit():
            declared = int(value)
        elif name == b"transfer-encoding":
            chunked = True
    return declared, chunked


async def _answer(send: Any, headers: dict[str, str], body: bytes) -> None:
    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": 413, "headers": raw})
    await send({"type": "http.response.body", "body": body})

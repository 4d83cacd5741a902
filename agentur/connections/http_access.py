"""HTTP to a connected service through the egress module: every request and every redirect hop
is checked by the egress rule and connects to the checked address, bodies are capped, the whole
exchange has a deadline. Credentials go in the Authorization header, never in URLs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from agentur.connections.kinds import UrlSettings
from agentur.connections.reach import connection_policy
from agentur.egress.fetch import egress_client, read_capped
from agentur.errors import AgenturError, NotFoundError


class SourceError(AgenturError, status_code=502, title="Connected service error"):
    """The connected service failed or refused; safe to show (no credentials)."""


@dataclass(frozen=True, slots=True)
class HttpAccess:
    base_url: str  # ends with "/"
    username: str
    password: str
    timeout_seconds: float
    max_bytes: int
    # The password is a token sent as the whole Authorization header (ClickUp), not basic auth.
    token_header: bool = False

    def client(self) -> httpx.AsyncClient:
        client = egress_client(connection_policy(self.timeout_seconds, self.max_bytes))
        if self.token_header:
            client.headers["Authorization"] = self.password
        elif self.username or self.password:
            client.auth = httpx.BasicAuth(self.username, self.password)
        return client


def url_access(settings: UrlSettings, secret: str, timeout: float, max_bytes: int) -> HttpAccess:
    """The access of a kind with one base URL: basic auth with the settings' user and the
    secret, or the secret as the Authorization header."""
    base_url = settings.base_url.rstrip("/") + "/"
    return HttpAccess(base_url, settings.user(), secret, timeout, max_bytes, settings.token_header)


async def send(access: HttpAccess, method: str, url: str, **options: Any) -> tuple[int, bytes]:
    """(status, body) of one request to `url` (below the connection's base URL)."""
    try:
        async with (
            access.client() as client,
            asyncio.timeout(access.timeout_seconds),
            client.stream(method, url, **options) as response,
        ):
            return response.status_code, await read_capped(response, access.max_bytes)
    except TimeoutError as error:
        raise SourceError(f"{method} {url} took longer than {access.timeout_seconds} s") from error
    except httpx.HTTPError as error:
        raise SourceError(f"{method} {url} failed: {error}") from error


def error_text(body: bytes, describe: Callable[[dict[str, Any]], str]) -> str:
    """One line from an error body: `describe` reads the service's JSON error object; anything
    else is shown as (the start of) the raw text."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:200].decode(errors="replace")
    described = describe(data) if isinstance(data, dict) else ""
    return described or str(data)[:200]


async def call_json(
    access: HttpAccess,
    service: str,
    describe_error: Callable[[dict[str, Any]], str],
    method: str,
    path: str,
    **options: Any,
) -> Any:
    """The JSON answer of a REST call below the base URL; a 404 is `NotFoundError`, any other
    failure `SourceError`, both carrying the service's own error text (`describe_error`)."""
    status, body = await send(access, method, access.base_url + path, **options)
    if status == 404:
        raise NotFoundError(f"{service}: {error_text(body, describe_error)}")
    if status >= 300:
        raise SourceError(f"{service} answered {status}: {error_text(body, describe_error)}")
    try:
        return json.loads(body) if body else {}
    except ValueError as error:
        raise SourceError(f"{service} sent a body that is not JSON ({status})") from error

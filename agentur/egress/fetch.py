"""One outbound request within the policy: the body is read up to `max_bytes` (more is
refused, never cut), the whole exchange — redirects included — within `timeout_seconds`."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from agentur.egress.check_target import EgressRefusedError
from agentur.egress.parse_url import parse_url
from agentur.egress.pinned_transport import EgressTransport
from agentur.egress.policy import EgressPolicy
from agentur.errors import TooLargeError


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str  # the final URL, after redirects
    status_code: int
    content_type: str
    body: bytes


def egress_client(policy: EgressPolicy, *, follow_redirects: bool = True) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=EgressTransport(policy),
        follow_redirects=follow_redirects,
        max_redirects=policy.max_redirects,
        timeout=policy.timeout_seconds,
        trust_env=False,  # a proxy from the environment would hide the real target
    )


async def read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise TooLargeError(f"the response is larger than {max_bytes} bytes")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > max_bytes:
            raise TooLargeError(f"the response is larger than {max_bytes} bytes")
    return bytes(body)


async def fetch(
    url: str,
    policy: EgressPolicy,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    content: bytes | None = None,
) -> Fetched:
    parse_url(url)  # a clear refusal before httpx parses it its own way
    try:
        async with (
            egress_client(policy) as client,
            asyncio.timeout(policy.timeout_seconds),
            client.stream(method, url, headers=headers, content=content) as response,
        ):
            body = await read_capped(response, policy.max_bytes)
            return Fetched(
                str(response.url),
                response.status_code,
                response.headers.get("content-type", ""),
                body,
            )
    except TimeoutError as error:
        raise EgressRefusedError(
            f"fetching {url!r} took longer than {policy.timeout_seconds} s"
        ) from error
    except httpx.TooManyRedirects as error:
        raise EgressRefusedError(f"more than {policy.max_redirects} redirects") from error
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise EgressRefusedError(f"fetching {url!r} failed: {error}") from error

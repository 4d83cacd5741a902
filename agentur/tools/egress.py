"""Egress checks for tools that fetch URLs (T3, S9): no private, loopback, link-local or
metadata targets, no redirects into them, and explicit size and time limits.

Every request hop passes through `EgressTransport`, so a redirect is checked exactly like the
first URL. Hosts are resolved before connecting and every resolved address must be public.
(A DNS answer that changes between the check and the connect is not covered; pinning the
address would break TLS name checks for virtual hosts.)
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from agentur.errors import ForbiddenError, TooLargeError

METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data"})


class EgressRefusedError(ForbiddenError):
    title = "Egress refused"


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    timeout_seconds: float = 20.0
    max_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 5
    # `host` or `host:port` exempt from the address check (a trusted intranet service).
    allowed_hosts: frozenset[str] = frozenset()


def _address_refusal(address: str) -> str | None:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if ip.is_private:
        return "a private address"
    if ip.is_multicast or ip.is_reserved or ip.is_unspecified:
        return "a reserved address"
    if isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.ip_network("fd00:ec2::/32"):
        return "a cloud metadata address"
    return None


async def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise EgressRefusedError(f"host {host!r} does not resolve") from error
    return sorted({str(info[4][0]) for info in infos})


async def check_url(url: str, policy: EgressPolicy) -> None:
    """Raise EgressRefusedError unless `url` is http(s) to a public address."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise EgressRefusedError(f"only http and https URLs may be fetched, not {parts.scheme!r}")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise EgressRefusedError(f"the URL {url!r} has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise EgressRefusedError(f"the URL {url!r} has an invalid port") from error
    if host in policy.allowed_hosts or f"{host}:{port}" in policy.allowed_hosts:
        return
    if host in METADATA_HOSTS or host == "localhost" or host.endswith(".localhost"):
        raise EgressRefusedError(f"fetching {host!r} is not allowed (internal host)")
    for address in await _resolve(host, port):
        if reason := _address_refusal(address):
            raise EgressRefusedError(f"fetching {host!r} is not allowed: it is {reason}")


class EgressTransport(httpx.AsyncBaseTransport):
    """Checks every request (including each redirect hop) before it leaves."""

    def __init__(self, policy: EgressPolicy, inner: httpx.AsyncBaseTransport | None = None):
        self.policy = policy
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await check_url(str(request.url), self.policy)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def egress_client(policy: EgressPolicy) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=EgressTransport(policy),
        follow_redirects=True,
        max_redirects=policy.max_redirects,
        timeout=policy.timeout_seconds,
        trust_env=False,  # a proxy from the environment would hide the real target
    )


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str
    status_code: int
    content_type: str
    body: bytes


async def fetch(url: str, policy: EgressPolicy) -> Fetched:
    """GET `url` within the policy's limits; a body over `max_bytes` is refused, not cut."""
    try:
        async with egress_client(policy) as client:
            async with asyncio.timeout(policy.timeout_seconds):
                async with client.stream("GET", url) as response:
                    declared = response.headers.get("content-length")
                    if declared and declared.isdigit() and int(declared) > policy.max_bytes:
                        raise TooLargeError(f"the response is larger than {policy.max_bytes} bytes")
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body.extend(chunk)
                        if len(body) > policy.max_bytes:
                            raise TooLargeError(
                                f"the response is larger than {policy.max_bytes} bytes"
                            )
                    return Fetched(
                        str(response.url),
                        response.status_code,
                        response.headers.get("content-type", ""),
                        bytes(body),
                    )
    except TimeoutError as error:
        raise EgressRefusedError(
            f"fetching {url!r} took longer than {policy.timeout_seconds} s"
        ) from error
    except httpx.TooManyRedirects as error:
        raise EgressRefusedError(f"more than {policy.max_redirects} redirects") from error
    except httpx.HTTPError as error:
        raise EgressRefusedError(f"fetching {url!r} failed: {error}") from error

"""An httpx transport that checks every request (each redirect hop included) and connects to
the address that was checked — not to whatever a second DNS lookup returns.

The request keeps its host name: the `Host` header, TLS SNI and certificate verification all
use it; only the TCP connect goes to the pinned address. httpx has no public hook for the
network backend, so the transport rebuilds its connection pool with one (`_pool`, stable since
httpx 0.18; the rebinding tests fail loudly if that ever changes). The same transport serves
httpx2 (its fork that the `mcp` SDK uses; same classes, module names `httpx2`, `httpcore2`).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import httpcore
import httpcore2
import httpx
import httpx2

from agentur.egress.check_target import checked_address
from agentur.egress.parse_url import DEFAULT_PORTS, parse_url
from agentur.egress.policy import EgressPolicy


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects a (host, port) only to the address pinned for it; unpinned hosts never.
    `core` is httpcore or httpcore2: errors must be the ones its transport maps."""

    def __init__(self, core: ModuleType = httpcore) -> None:
        self.core = core
        self.inner = core.AnyIOBackend()
        self.pins: dict[tuple[str, int], str] = {}

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = self.pins.get((host, port))
        if address is None:
            raise self.core.ConnectError(f"{host}:{port} was not checked; not connecting")
        return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise self.core.ConnectError("unix sockets are not an egress target")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class EgressTransport(httpx.AsyncBaseTransport):
    http: ModuleType = httpx
    core: ModuleType = httpcore

    def __init__(self, policy: EgressPolicy, *, verify: ssl.SSLContext | bool = True) -> None:
        self.policy = policy
        self.backend = PinnedBackend(self.core)
        self.inner = self.http.AsyncHTTPTransport(verify=verify, trust_env=False)
        self.inner._pool = self.core.AsyncConnectionPool(
            ssl_context=self.http.create_ssl_context(verify=verify, trust_env=False),
            network_backend=self.backend,
        )

    async def handle_async_request(self, request: Any) -> Any:  # httpx or httpx2 request
        address = await checked_address(parse_url(str(request.url)), self.policy)
        url = request.url
        # The key is what httpcore will pass to `connect_tcp` for this request.
        self.backend.pins[(url.raw_host.decode("ascii"), url.port or DEFAULT_PORTS[url.scheme])] = (
            address
        )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Httpx2EgressTransport(EgressTransport, httpx2.AsyncBaseTransport):
    """The egress transport for httpx2 clients (the `mcp` SDK's HTTP library)."""

    http = httpx2
    core = httpcore2

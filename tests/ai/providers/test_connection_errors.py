"""Failures below HTTP name their kind: DNS, TLS, connect timeout — each with
provider, model and host, each retryable (nothing reached the server)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import httpx
import pytest

from agentur.ai.providers.base import ErrorKind, ProviderError
from agentur.ai.providers.http_transport import Timeouts
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from tests.ai.providers.helpers import ask, spec
from tests.ai.wire_servers import WireServer

MODEL = spec("openai_compatible", "qwen2.5")


def local(base_url: str, client: httpx.AsyncClient, **timeouts: float):
    return OpenAICompatibleProvider(
        client=client, base_url=base_url, models=[MODEL], timeouts=Timeouts(**timeouts)
    )


async def _fail(provider: OpenAICompatibleProvider) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await provider.complete(MODEL, ask())
    return caught.value


async def test_unknown_host_is_a_dns_failure(http_client: httpx.AsyncClient) -> None:
    # `.invalid` never resolves (RFC 2606).
    error = await _fail(local("http://agentur-test.invalid:8080/v1", http_client))
    assert error.kind is ErrorKind.dns and error.retryable
    assert str(error).startswith(
        "openai_compatible qwen2.5 at agentur-test.invalid:8080: DNS lookup failed: "
    )


async def test_https_to_a_plain_http_server_is_a_tls_failure(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    host = openai_server.url.removeprefix("http://")
    error = await _fail(local(f"https://{host}/v1", http_client))
    assert error.kind is ErrorKind.tls and error.retryable
    assert str(error).startswith(f"openai_compatible qwen2.5 at {host}: TLS handshake failed: ")
    assert openai_server.received == []


@pytest.fixture
def full_backlog() -> Iterator[int]:
    """A port whose listen queue is full: the kernel drops further SYNs, so connecting hangs
    until the client's connect timeout."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for sock in [*fillers, listener]:
        sock.close()


async def test_connect_timeout_is_named(full_backlog: int) -> None:
    async with httpx.AsyncClient() as client:
        error = await _fail(local(f"http://127.0.0.1:{full_backlog}/v1", client, connect=0.2))
    assert error.kind is ErrorKind.connect_timeout and error.retryable
    assert str(error).startswith(
        f"openai_compatible qwen2.5 at 127.0.0.1:{full_backlog}: connect timeout: "
    )

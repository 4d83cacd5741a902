"""A listener on 127.0.0.1 proves that refused targets get no connection at all — whatever the
spelling of the address — and that an allowed host is really reached."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agentur.egress.check_target import EgressRefusedError
from agentur.egress.fetch import fetch
from agentur.egress.parse_url import UrlRefusedError
from agentur.egress.policy import AllowList, EgressPolicy
from tests.egress.listeners import Listener, listening, redirect

SPELLINGS = [
    "127.0.0.1",
    "localhost",
    "LOCALHOST.",
    "app.localhost",
    "[::1]",
    "0.0.0.0",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.1",
    "0x7f.0.0.1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[2002:7f00:1::]",  # 6to4 embedding 127.0.0.1
    "[64:ff9b::7f00:1]",  # NAT64 embedding 127.0.0.1
    "[::]",
]
REFUSALS = (EgressRefusedError, UrlRefusedError)


@pytest.fixture
async def loopback() -> AsyncIterator[Listener]:
    listener = await listening("127.0.0.1")
    yield listener
    await listener.stop()


@pytest.mark.parametrize("host", SPELLINGS)
async def test_no_connection_is_made_for_any_spelling_of_loopback(
    loopback: Listener, host: str
) -> None:
    with pytest.raises(REFUSALS) as refused:
        await fetch(f"http://{host}:{loopback.port}/", EgressPolicy(timeout_seconds=2))
    # Refused by the policy, not by a failed connect.
    assert "failed" not in refused.value.detail
    assert loopback.connections == 0


@pytest.mark.parametrize(
    "url",
    [
        "http://100.100.100.200/latest/meta-data",  # carrier-grade NAT metadata host
        "http://169.254.169.254/",
        "http://[2002:a9fe:a9fe::]/",  # 6to4 embedding 169.254.169.254
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[fd00:ec2::254]/",
        "http://192.0.0.9/",
        "http://10.0.0.1/",
        "http://[fe80::1]/",
        "http://224.0.1.1/",
        "http://240.0.0.1/",
        "http://metadata.google.internal/",
        "file:///etc/passwd",
        "ftp://example.com/",
        "http://user@example.com/",
    ],
)
async def test_internal_and_odd_targets_are_refused_before_any_lookup(url: str) -> None:
    async def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError(f"{host} must not be resolved")

    with pytest.raises(REFUSALS):
        await fetch(url, EgressPolicy(resolve=no_dns))


@pytest.mark.parametrize("entry", ["127.0.0.1:{port}", "127.0.0.1", "127.0.0.0/8"])
async def test_an_allowed_host_or_network_is_reached(loopback: Listener, entry: str) -> None:
    policy = EgressPolicy(allowed=AllowList.parse(entry.format(port=loopback.port)))
    fetched = await fetch(f"http://127.0.0.1:{loopback.port}/ok", policy)
    assert fetched.status_code == 200 and fetched.body == b"hello"
    assert loopback.requests[0].startswith(b"GET /ok ")


async def test_allowing_one_port_does_not_allow_another(loopback: Listener) -> None:
    policy = EgressPolicy(allowed=AllowList.parse(f"127.0.0.1:{loopback.port + 1}"))
    with pytest.raises(EgressRefusedError, match="loopback"):
        await fetch(f"http://127.0.0.1:{loopback.port}/", policy)
    assert loopback.connections == 0


@pytest.mark.parametrize(
    "location", ["http://localhost:{port}/", "http://0x7f000001:{port}/", "http://[::1]:{port}/"]
)
async def test_a_redirect_into_a_private_address_is_refused(
    loopback: Listener, location: str
) -> None:
    outer = await listening("127.0.0.1", redirect(location.format(port=loopback.port)))
    try:
        policy = EgressPolicy(allowed=AllowList.parse(f"127.0.0.1:{outer.port}"))
        with pytest.raises(REFUSALS):
            await fetch(f"http://127.0.0.1:{outer.port}/start", policy)
        assert len(outer.requests) == 1
        assert loopback.connections == 0  # no second request arrived anywhere
    finally:
        await outer.stop()

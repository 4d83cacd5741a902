"""DNS rebinding: the connection goes to the address that was checked, never to a second,
different DNS answer — and the Host header still names the host."""

from __future__ import annotations

import asyncio
import errno

import httpcore
import httpx
import httpx2
import pytest

from agentur.connections.kinds import Security
from agentur.connections.mail_client import MailAccess, MailError, MailSettings, open_imap
from agentur.egress.check_target import EgressRefusedError
from agentur.egress.fetch import fetch
from agentur.egress.pinned_transport import EgressTransport, Httpx2EgressTransport
from agentur.egress.policy import AllowList, EgressPolicy
from tests.egress.listeners import Listener, listening


def rebinding(*answers: str) -> tuple[list[str], object]:
    """A resolver whose first answer is `answers[0]`, then `answers[1]` for ever after."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return [answers[min(len(asked), len(answers)) - 1]]

    return asked, resolve


async def _pair() -> tuple[Listener, Listener]:
    """Listeners on 127.0.0.2 and 127.0.0.1, on the same port."""
    for _ in range(20):
        checked = await listening("127.0.0.2")
        try:
            return checked, await listening("127.0.0.1", port=checked.port)
        except OSError as error:
            await checked.stop()
            if error.errno != errno.EADDRINUSE:
                raise
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


class NoInternet(httpcore.AsyncNetworkBackend):
    """Stands in for the route to the internet, which tests never use: records the address
    asked for and refuses, as an unreachable network would."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    async def connect_tcp(self, host: str, port: int, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        self.asked.append((host, port))
        raise httpcore.ConnectError("network unreachable")


async def test_public_first_then_loopback_never_reaches_loopback() -> None:
    loopback = await listening("127.0.0.1")
    try:
        asked, resolve = rebinding("93.184.215.14", "127.0.0.1")
        transport = EgressTransport(EgressPolicy(resolve=resolve))  # type: ignore[arg-type]
        network = transport.backend.inner = NoInternet()
        async with httpx.AsyncClient(transport=transport) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"http://rebind.test:{loopback.port}/")
        assert asked == ["rebind.test"]  # resolved once: nothing asked DNS again
        assert network.asked == [("93.184.215.14", loopback.port)]  # the checked address
        assert loopback.connections == 0
    finally:
        await loopback.stop()


async def test_the_connection_goes_to_the_checked_address_with_the_host_kept() -> None:
    checked, loopback = await _pair()
    try:
        asked, resolve = rebinding("127.0.0.2", "127.0.0.1")
        policy = EgressPolicy(allowed=AllowList.parse("127.0.0.2/32"), resolve=resolve)  # type: ignore[arg-type]
        fetched = await fetch(f"http://rebind.test:{checked.port}/page", policy)
        assert fetched.body == b"hello" and asked == ["rebind.test"]
        assert f"Host: rebind.test:{checked.port}".encode() in checked.requests[0]
        # The next lookup answers 127.0.0.1, which is not allowed: refused, not connected.
        with pytest.raises(EgressRefusedError, match="loopback"):
            await fetch(f"http://rebind.test:{checked.port}/page", policy)
        assert loopback.connections == 0 and len(checked.requests) == 1
    finally:
        await checked.stop()
        await loopback.stop()


async def test_every_answer_must_pass_not_only_the_first() -> None:
    async def mixed(host: str, port: int) -> list[str]:
        return ["93.184.215.14", "10.0.0.7"]

    with pytest.raises(EgressRefusedError, match="10.0.0.7"):
        await fetch("http://mixed.test/", EgressPolicy(resolve=mixed))


async def test_the_httpx2_transport_of_mcp_connections_pins_too() -> None:
    checked, loopback = await _pair()
    try:
        asked, resolve = rebinding("127.0.0.2", "127.0.0.1")
        policy = EgressPolicy(allowed=AllowList.parse("127.0.0.2/32"), resolve=resolve)  # type: ignore[arg-type]
        transport = Httpx2EgressTransport(policy)
        async with httpx2.AsyncClient(transport=transport, trust_env=False) as client:
            response = await client.get(f"http://rebind.test:{checked.port}/page")
            assert response.content == b"hello" and asked == ["rebind.test"]
            with pytest.raises(EgressRefusedError, match="loopback"):
                await client.get(f"http://rebind.test:{checked.port}/again")
        assert f"Host: rebind.test:{checked.port}".encode() in checked.requests[0]
        assert loopback.connections == 0 and len(checked.requests) == 1
    finally:
        await checked.stop()
        await loopback.stop()


async def test_a_mail_socket_goes_to_the_checked_address_not_to_the_host_name() -> None:
    """IMAP connects to the address the egress check returned; the host name (kept for TLS)
    is never looked up again — here it does not even resolve."""
    listener = Listener("127.0.0.1", greeting=b"* BYE bye\r\n")
    await listener.start()
    try:
        settings = MailSettings(
            username="u", from_address="u@x.test", imap_host="imap.rebind.test",
            imap_port=listener.port, imap_security=Security.none, smtp_host="smtp.rebind.test",
        )  # fmt: skip
        with pytest.raises(MailError):
            await asyncio.to_thread(open_imap, MailAccess(settings, "p", 5.0), "127.0.0.1")
        assert listener.connections == 1
    finally:
        await listener.stop()

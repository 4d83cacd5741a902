"""Raw TCP listeners on loopback that count every connection (not only complete requests),
so a test can prove that nothing at all reached them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

Handler = Callable[[bytes], bytes]


def ok(body: bytes = b"hello") -> Handler:
    return lambda _: (
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body
    )


def redirect(location: str) -> Handler:
    return lambda _: (
        f"HTTP/1.1 302 Found\r\nLocation: {location}\r\n".encode()
        + b"Content-Length: 0\r\nConnection: close\r\n\r\n"
    )


@dataclass
class Listener:
    host: str
    handler: Handler = field(default_factory=ok)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    server: asyncio.Server | None = None
    # Sent first and the connection closed (a mail server's greeting): no request is awaited.
    greeting: bytes | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            if self.greeting is not None:
                writer.write(self.greeting)
                await writer.drain()
                return
            head = await reader.readuntil(b"\r\n\r\n")
            self.requests.append(head)
            writer.write(self.handler(head))
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start(self, port: int = 0) -> Listener:
        self.server = await asyncio.start_server(self._serve, self.host, port)
        return self

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def listening(host: str, handler: Handler | None = None, port: int = 0) -> Listener:
    return await Listener(host, handler or ok()).start(port)

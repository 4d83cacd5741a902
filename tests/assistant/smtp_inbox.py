"""A real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives, for e-mail tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message as MessageHandler


class Inbox(MessageHandler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[object] = []

    def handle_message(self, message) -> None:  # type: ignore[no-untyped-def]
        self.messages.append(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_inbox() -> Iterator[tuple[int, Inbox]]:
    """(port, inbox) of a running SMTP server without TLS."""
    inbox = Inbox()
    port = free_port()  # aiosmtpd probes its own port on start, so 0 does not work
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, inbox
    finally:
        controller.stop()

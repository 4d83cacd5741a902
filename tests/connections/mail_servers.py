"""Real mail servers on 127.0.0.1 for the tests: pymap (a pure-Python IMAP4rev1 server, its
in-memory backend) in a subprocess, aiosmtpd for SMTP."""

from __future__ import annotations

import imaplib
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

IMAP_USER = "mailuser"
IMAP_PASSWORD = "imap-Secret-7731"  # asserted to be absent from every model request and trace


def mail_settings(imap_port: int, smtp_port: int) -> dict[str, object]:
    """Settings of a mail connection to these servers (plain text on loopback)."""
    return {
        "username": IMAP_USER, "from_address": "me@acme.test",
        "imap_host": "127.0.0.1", "imap_port": imap_port, "imap_security": "none",
        "smtp_host": "127.0.0.1", "smtp_port": smtp_port, "smtp_security": "none",
    }  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def imap_server(password: str = IMAP_PASSWORD) -> Iterator[int]:
    pymap = shutil.which("pymap") or str(Path(sys.executable).parent / "pymap")
    port = free_port()
    process = subprocess.Popen(
        [pymap, "--host", "127.0.0.1", "--port", str(port), "--no-tls", "dict",
         "--demo-user", IMAP_USER, "--demo-password", password],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    raise RuntimeError(f"pymap did not start on port {port}") from None
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(10)


def seed(port: int, *messages: EmailMessage, mailbox: str = "INBOX") -> None:
    """Deliver messages with a real IMAP APPEND."""
    imap = imaplib.IMAP4("127.0.0.1", port)
    imap.login(IMAP_USER, IMAP_PASSWORD)
    for message in messages:
        status, data = imap.append(mailbox, None, None, message.as_bytes())
        assert status == "OK", data
    imap.logout()


def message(
    sender: str, subject: str, body: str, *, attachment: tuple[str, bytes] | None = None
) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, "me@acme.test", subject
    mail["Date"] = "Mon, 02 Nov 2026 10:00:00 +0000"
    mail["Message-ID"] = f"<{abs(hash(subject))}@test>"
    mail.set_content(body)
    if attachment:
        mail.add_attachment(attachment[1], maintype="text", subtype="plain", filename=attachment[0])
    return mail


@dataclass
class Outbox:
    envelopes: list[object] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]  # noqa: N802
        self.envelopes.append(envelope)
        return "250 2.0.0 queued as T-1"


def _authenticate(server, session, envelope, mechanism, auth_data) -> AuthResult:  # type: ignore[no-untyped-def]
    valid = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == IMAP_USER
    return AuthResult(success=valid and auth_data.password.decode() == IMAP_PASSWORD)


@contextmanager
def smtp_server() -> Iterator[tuple[int, Outbox]]:
    outbox = Outbox()
    port = free_port()  # aiosmtpd probes its own port on start, so 0 does not work
    controller = Controller(
        outbox, hostname="127.0.0.1", port=port, authenticator=_authenticate,
        auth_required=True, auth_require_tls=False,  # plain text on loopback only
    )  # fmt: skip
    controller.start()
    try:
        yield port, outbox
    finally:
        controller.stop()

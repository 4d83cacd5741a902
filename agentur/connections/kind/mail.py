"""Mail: IMAP to read, SMTP to send, with a username and password."""

from __future__ import annotations

import asyncio
import imaplib
from contextlib import suppress

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.mail_client import MailAccess, MailSettings, check_smtp, open_imap
from agentur.connections.reach import pinned_address


def access(settings: MailSettings, secret: str, timeout: float, max_bytes: int) -> MailAccess:
    return MailAccess(settings, secret, timeout)


async def check(access: MailAccess) -> None:
    """Logs in to IMAP and greets SMTP (EHLO, login); nothing is read or sent."""
    settings = access.settings
    timeout = access.timeout_seconds
    imap_address = await pinned_address(settings.imap_target, timeout)
    smtp_address = await pinned_address(settings.smtp_target, timeout)

    def run() -> None:
        imap = open_imap(access, imap_address)
        with suppress(OSError, imaplib.IMAP4.error):
            imap.logout()
        check_smtp(access, smtp_address)

    await asyncio.to_thread(run)


KIND = ConnectionKind(
    "mail",
    MailSettings,
    access,
    check,
    KindToolbox("email", "Read and send e-mail.", after="language"),
)

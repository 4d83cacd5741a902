"""E-mail escalation to a help desk through SMTP.

Honest by construction: `delivered` is True only after the SMTP server accepted the message;
without SMTP settings, or on any SMTP failure, the result says so and offers the desk's other
options — no text ever claims a delivery that did not happen.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from agentur.assistant.definition import HelpDesk
from agentur.assistant.escalation_menu import usable_options
from agentur.assistant.phrases import phrase
from agentur.assistant.settings import AssistantSettings

logger = logging.getLogger(__name__)
SMTP_TIMEOUT_SECONDS = 15


@dataclass(frozen=True, slots=True)
class EmailResult:
    delivered: bool
    message: str
    error: str | None = None
    alternatives: list[dict[str, Any]] = field(default_factory=list)


def _send_blocking(settings: AssistantSettings, mail: EmailMessage) -> None:
    assert settings.smtp_host is not None
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT_SECONDS) as smtp:
        if settings.smtp_starttls:
            smtp.starttls()
        if settings.smtp_username:
            smtp.login(settings.smtp_username, settings.smtp_password or "")
        smtp.send_message(mail)


async def send_mail(
    settings: AssistantSettings, to: str, subject: str, body: str, reply_to: str | None = None
) -> None:
    """Raises `OSError`/`smtplib.SMTPException` on failure, `RuntimeError` when unconfigured."""
    if not settings.smtp_host:
        raise RuntimeError("no SMTP server is configured (AGENTUR_SMTP_HOST)")
    mail = EmailMessage()
    mail["From"] = settings.smtp_sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Message-ID"] = make_msgid()
    if reply_to:
        mail["Reply-To"] = reply_to
    mail.set_content(body)
    await asyncio.to_thread(_send_blocking, settings, mail)


async def send_escalation_email(
    settings: AssistantSettings,
    desk: HelpDesk,
    visitor_email: str | None,
    text: str,
    language: str,
    transcript: str = "",
) -> EmailResult:
    # The desk's other options a visitor can use (never e-mail again, never a bare chat queue)
    others = [
        {"kind": o.kind, "label": o.label or o.kind, "contact": o.address}
        for o in usable_options(desk, email_available=False)
    ]
    option = next((o for o in desk.options if o.kind == "email"), None)
    if option is None:
        return EmailResult(
            False,
            phrase("email_unavailable", language),
            "this help desk has no e-mail option",
            others,
        )
    body = f"{text}\n\nReply to: {visitor_email or '(not given)'}\n\n{transcript}".strip()
    try:
        await send_mail(
            settings, option.address, f"Visitor request for {desk.name}", body, visitor_email
        )
    except (RuntimeError, OSError, smtplib.SMTPException) as error:
        logger.warning("escalation e-mail to %s not sent: %s", desk.name, error)
        return EmailResult(False, phrase("email_unavailable", language), str(error), others)
    return EmailResult(True, phrase("email_sent", language, desk=desk.name))

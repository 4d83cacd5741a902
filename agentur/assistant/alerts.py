"""Operator alerts (replay changes): always logged; also POSTed to the configured webhook and
e-mailed to the configured address. A failing channel is logged and reported, never hidden."""

from __future__ import annotations

import logging
import smtplib
from typing import Any

import httpx

from agentur.assistant.send_escalation_email import send_mail
from agentur.assistant.settings import AssistantSettings

logger = logging.getLogger("agentur.assistant.alerts")
WEBHOOK_TIMEOUT_SECONDS = 10.0


async def raise_alert(
    settings: AssistantSettings,
    subject: str,
    body: str,
    payload: dict[str, Any],
    transport: httpx.AsyncBaseTransport | None = None,
) -> dict[str, str]:
    """Channel → "sent" or the failure; the log line is written in every case."""
    logger.warning("ALERT %s\n%s", subject, body)
    outcome = {"log": "sent"}
    if settings.assistant_alert_webhook_url:
        try:
            async with httpx.AsyncClient(
                timeout=WEBHOOK_TIMEOUT_SECONDS, transport=transport
            ) as client:
                response = await client.post(
                    settings.assistant_alert_webhook_url, json={"subject": subject, **payload}
                )
            response.raise_for_status()
            outcome["webhook"] = "sent"
        except httpx.HTTPError as error:
            outcome["webhook"] = f"failed: {type(error).__name__}"
            logger.error("alert webhook failed: %s", error)
    if settings.assistant_alert_email:
        try:
            await send_mail(settings, settings.assistant_alert_email, subject, body)
            outcome["email"] = "sent"
        except (RuntimeError, OSError, smtplib.SMTPException) as error:
            outcome["email"] = f"failed: {error}"
            logger.error("alert e-mail failed: %s", error)
    return outcome

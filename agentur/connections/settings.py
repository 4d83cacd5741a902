"""Limits of connection use (mail, data sources); every one is explicit and configurable."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings, count, seconds


class ConnectionSettings(PartSettings):
    connection_timeout_seconds: float = seconds(
        20.0, "Timeout of one connect/command to a connected server."
    )
    mail_max_message_bytes: int = count(25 * 1024 * 1024, "Largest e-mail read or sent.")
    mail_max_search_results: int = count(50, "Most messages one mail search returns.", most=1000)
    mail_body_window_chars: int = Field(
        default=4_000, ge=100, description="Characters of a mail body one read returns."
    )

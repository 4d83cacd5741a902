"""What the settings of every kind of connection build on (each kind declares its own model in
its module, agentur/connections/kind/). Settings are shown back to the caller;
credentials (passwords, tokens) are a separate, write-only part.

Every string in settings and credentials reaches a wire protocol, so each is one line without
control characters (`WireModel`). Every server a connection reaches is a `Target` parsed by the
egress module as the settings are validated (only http/https URLs, no disguised addresses);
whether its address may be reached is checked when the connection is saved and at every
connect (`agentur.connections.reach`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar

from pydantic import AfterValidator, Field

from agentur.egress.parse_url import Target, UrlRefusedError, parse_url
from agentur.wire_values import WireModel, WireText

MAX_URL_CHARS = 2000


class Security(StrEnum):
    tls = "tls"  # TLS from the first byte (IMAPS 993, SMTPS 465)
    starttls = "starttls"
    none = "none"  # plain text: only for trusted networks and tests


def _url(value: str) -> str:
    try:
        parse_url(value)
    except UrlRefusedError as error:
        raise ValueError(error.detail) from error
    return value


# A URL a connection reaches, parsed by the egress module when the settings are validated.
EgressUrl = Annotated[str, AfterValidator(_url)]


class ConnectionSettingsModel(WireModel):
    def targets(self) -> list[tuple[str, Target]]:
        """(setting, target) of every server this connection reaches."""
        return []


class UrlSettings(ConnectionSettingsModel):
    """Settings with one base URL, the service every request goes to."""

    base_url: EgressUrl = Field(min_length=8, max_length=MAX_URL_CHARS)

    # The secret is a token sent as the whole Authorization header, not basic auth.
    token_header: ClassVar[bool] = False

    def targets(self) -> list[tuple[str, Target]]:
        return [("base_url", parse_url(self.base_url))]

    def user(self) -> str:
        """The basic-auth user name that goes with the secret."""
        return ""


class Credentials(WireModel):
    """Write-only secrets; never returned, never in prompts, logs or traces."""

    password: WireText = Field(default="", max_length=4096)

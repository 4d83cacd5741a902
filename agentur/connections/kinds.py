"""The kinds of connection and the settings each needs. Settings are shown back to the caller;
credentials (passwords, tokens) are a separate, write-only part.

Every string in settings and credentials reaches a wire protocol, so each is one line without
control characters (`WireModel`). Every server a connection reaches is a `Target` parsed by the
egress module as the settings are validated (only http/https URLs, no disguised addresses);
whether its address may be reached is checked when the connection is saved and at every
connect (`agentur.connections.reach`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import AfterValidator, Field, ValidationError, model_validator

from agentur.egress.parse_url import Target, UrlRefusedError, parse_host, parse_url
from agentur.errors import InvalidInputError
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

    def targets(self) -> list[tuple[str, Target]]:
        return [("base_url", parse_url(self.base_url))]


class MailSettings(ConnectionSettingsModel):
    username: str = Field(min_length=1, max_length=320)
    from_address: str = Field(min_length=3, max_length=320)
    imap_host: str = Field(min_length=1, max_length=253)
    imap_port: int = Field(default=993, ge=1, le=65535)
    imap_security: Security = Security.tls
    smtp_host: str = Field(min_length=1, max_length=253)
    smtp_port: int = Field(default=465, ge=1, le=65535)
    smtp_security: Security = Security.tls

    @model_validator(mode="after")
    def _egress_hosts(self) -> MailSettings:
        for field in ("imap_host", "smtp_host"):
            try:
                parse_host(getattr(self, field), 1, "mail")
            except UrlRefusedError as error:
                raise ValueError(f"{field}: {error.detail}") from error
        return self

    @property
    def imap_target(self) -> Target:
        return parse_host(self.imap_host, self.imap_port, "imap")

    @property
    def smtp_target(self) -> Target:
        return parse_host(self.smtp_host, self.smtp_port, "smtp")

    def targets(self) -> list[tuple[str, Target]]:
        return [("imap_host", self.imap_target), ("smtp_host", self.smtp_target)]


class WebdavSettings(UrlSettings):
    username: str = Field(default="", max_length=320)


class JiraSettings(UrlSettings):
    """Jira Cloud REST v3: the site URL and the account e-mail; the API token is the password."""

    email: str = Field(min_length=3, max_length=320)


class ClickUpSettings(UrlSettings):
    """ClickUp API v2; the personal token (`pk_…`) is the password."""

    base_url: EgressUrl = Field(default="https://api.clickup.com/api/v2/", max_length=MAX_URL_CHARS)


class MicrosoftSettings(ConnectionSettingsModel):
    """Microsoft Graph with an app registration (client credentials); the client secret is the
    password. The token URL and the Graph URL are both targets of the egress rule."""

    tenant_id: str = Field(min_length=1, max_length=100)
    client_id: str = Field(min_length=1, max_length=100)
    token_url: str = Field(
        default="https://login.microsoftonline.com/{tenant_id}/oauth2/v2.0/token",
        max_length=MAX_URL_CHARS,
    )
    graph_url: EgressUrl = Field(
        default="https://graph.microsoft.com/v1.0/", max_length=MAX_URL_CHARS
    )

    @model_validator(mode="after")
    def _egress_token_url(self) -> MicrosoftSettings:
        try:
            parse_url(self.token_endpoint)
        except UrlRefusedError as error:
            raise ValueError(f"token_url: {error.detail}") from error
        return self

    @property
    def token_endpoint(self) -> str:
        """The token URL with the tenant filled in (encoded: it cannot change the host)."""
        return self.token_url.replace("{tenant_id}", quote(self.tenant_id, safe=""))

    def targets(self) -> list[tuple[str, Target]]:
        return [
            ("token_url", parse_url(self.token_endpoint)),
            ("graph_url", parse_url(self.graph_url)),
        ]


class McpSettings(ConnectionSettingsModel):
    """An MCP server over streamable HTTP; an optional bearer token is the password."""

    url: EgressUrl = Field(
        min_length=8, max_length=MAX_URL_CHARS, description="The server's MCP endpoint."
    )

    def targets(self) -> list[tuple[str, Target]]:
        return [("url", parse_url(self.url))]


class Credentials(WireModel):
    """Write-only secrets; never returned, never in prompts, logs or traces."""

    password: WireText = Field(default="", max_length=4096)


KIND_SETTINGS: dict[str, type[ConnectionSettingsModel]] = {
    "mail": MailSettings,
    "webdav": WebdavSettings,
    "jira": JiraSettings,
    "clickup": ClickUpSettings,
    "microsoft": MicrosoftSettings,
    "mcp": McpSettings,
}


def validate_settings(kind: str, settings: dict[str, Any]) -> ConnectionSettingsModel:
    model = KIND_SETTINGS.get(kind)
    if model is None:
        raise InvalidInputError(f"unknown connection kind {kind!r}; known: {sorted(KIND_SETTINGS)}")
    try:
        return model.model_validate(settings)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(f"{part}: " for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise InvalidInputError(f"{kind} settings: {where}{message}") from error

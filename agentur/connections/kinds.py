"""The kinds of connection and the settings each needs. Settings are shown back to the caller;
credentials (passwords, tokens) are a separate, write-only part."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agentur.errors import InvalidInputError


class Security(StrEnum):
    tls = "tls"  # TLS from the first byte (IMAPS 993, SMTPS 465)
    starttls = "starttls"
    none = "none"  # plain text: only for trusted networks and tests


class MailSettings(BaseModel):
    username: str = Field(min_length=1, max_length=320)
    from_address: str = Field(min_length=3, max_length=320)
    imap_host: str = Field(min_length=1, max_length=253)
    imap_port: int = Field(default=993, ge=1, le=65535)
    imap_security: Security = Security.tls
    smtp_host: str = Field(min_length=1, max_length=253)
    smtp_port: int = Field(default=465, ge=1, le=65535)
    smtp_security: Security = Security.tls


class WebdavSettings(BaseModel):
    base_url: str = Field(min_length=8, max_length=2000)
    username: str = Field(default="", max_length=320)


class JiraSettings(BaseModel):
    """Jira Cloud REST v3: the site URL and the account e-mail; the API token is the password."""

    base_url: str = Field(min_length=8, max_length=2000)
    email: str = Field(min_length=3, max_length=320)


class ClickUpSettings(BaseModel):
    """ClickUp API v2; the personal token (`pk_…`) is the password."""

    base_url: str = Field(default="https://api.clickup.com/api/v2/", max_length=2000)


class MicrosoftSettings(BaseModel):
    """Microsoft Graph with an app registration (client credentials); the client secret is the
    password. Both the token and the Graph host are allowed for this connection only."""

    tenant_id: str = Field(min_length=1, max_length=100)
    client_id: str = Field(min_length=1, max_length=100)
    token_url: str = Field(
        default="https://login.microsoftonline.com/{tenant_id}/oauth2/v2.0/token", max_length=2000
    )
    graph_url: str = Field(default="https://graph.microsoft.com/v1.0/", max_length=2000)


class McpSettings(BaseModel):
    """An MCP server over streamable HTTP; an optional bearer token is the password."""

    url: str = Field(min_length=8, max_length=2000, description="The server's MCP endpoint.")


class Credentials(BaseModel):
    """Write-only secrets; never returned, never in prompts, logs or traces."""

    password: str = Field(default="", max_length=4096)


KIND_SETTINGS: dict[str, type[BaseModel]] = {
    "mail": MailSettings,
    "webdav": WebdavSettings,
    "jira": JiraSettings,
    "clickup": ClickUpSettings,
    "microsoft": MicrosoftSettings,
    "mcp": McpSettings,
}


def validate_settings(kind: str, settings: dict[str, Any]) -> BaseModel:
    model = KIND_SETTINGS.get(kind)
    if model is None:
        raise InvalidInputError(f"unknown connection kind {kind!r}; known: {sorted(KIND_SETTINGS)}")
    try:
        return model.model_validate(settings)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "settings"
        raise InvalidInputError(f"{kind} settings: {where}: {first['msg']}") from error

"""ClickUp: API v2 with a personal token as the whole Authorization header."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from agentur.connections.clickup_client import check
from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.http_access import url_access
from agentur.connections.kinds import MAX_URL_CHARS, EgressUrl, UrlSettings


class ClickUpSettings(UrlSettings):
    """ClickUp API v2; the personal token (`pk_…`) is the password."""

    base_url: EgressUrl = Field(default="https://api.clickup.com/api/v2/", max_length=MAX_URL_CHARS)
    token_header: ClassVar[bool] = True


KIND = ConnectionKind(
    "clickup",
    ClickUpSettings,
    url_access,
    check,
    KindToolbox("clickup", "ClickUp tasks.", after="sharepoint"),
)

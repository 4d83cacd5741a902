"""Jira Cloud: REST v3 with the account e-mail and an API token (basic auth)."""

from __future__ import annotations

from pydantic import Field

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.http_access import url_access
from agentur.connections.jira_client import check
from agentur.connections.kinds import UrlSettings


class JiraSettings(UrlSettings):
    """Jira Cloud REST v3: the site URL and the account e-mail; the API token is the password."""

    email: str = Field(min_length=3, max_length=320)

    def user(self) -> str:
        return self.email


KIND = ConnectionKind(
    "jira",
    JiraSettings,
    url_access,
    check,
    KindToolbox("jira", "Jira issues.", after="clickup"),
)

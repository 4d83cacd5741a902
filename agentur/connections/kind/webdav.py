"""WebDAV: a file server reached with a username and password (basic auth)."""

from __future__ import annotations

from pydantic import Field

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.http_access import url_access
from agentur.connections.kinds import UrlSettings
from agentur.connections.webdav_client import check


class WebdavSettings(UrlSettings):
    username: str = Field(default="", max_length=320)

    def user(self) -> str:
        return self.username


KIND = ConnectionKind(
    "webdav",
    WebdavSettings,
    url_access,
    check,
    KindToolbox("datasources", "Connected data sources (WebDAV).", after="documents"),
)

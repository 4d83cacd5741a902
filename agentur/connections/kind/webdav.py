"""WebDAV: a file server reached with a username and password (basic auth)."""

from __future__ import annotations

from pydantic import Field

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.http_access import HttpAccess
from agentur.connections.kinds import UrlSettings
from agentur.connections.webdav_client import check


class WebdavSettings(UrlSettings):
    username: str = Field(default="", max_length=320)


def access(settings: WebdavSettings, secret: str, timeout: float, max_bytes: int) -> HttpAccess:
    return HttpAccess(
        settings.base_url.rstrip("/") + "/", settings.username, secret, timeout, max_bytes
    )


KIND = ConnectionKind(
    "webdav",
    WebdavSettings,
    access,
    check,
    KindToolbox("datasources", "Connected data sources (WebDAV).", after="documents"),
)

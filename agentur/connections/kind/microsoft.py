"""Microsoft Graph (SharePoint) with an app registration; the client secret is the secret."""

from __future__ import annotations

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.graph_client import GraphAccess, MicrosoftSettings, check


def access(settings: MicrosoftSettings, secret: str, timeout: float, max_bytes: int) -> GraphAccess:
    return GraphAccess(settings, secret, timeout, max_bytes)


KIND = ConnectionKind(
    "microsoft",
    MicrosoftSettings,
    access,
    check,
    KindToolbox("sharepoint", "SharePoint sites and files.", after="email"),
)

"""Microsoft Graph v1.0 for SharePoint/OneDrive files (documented wire format): an app token
by client credentials, drive folders listed with `@odata.nextLink` paging, file content.
Token errors (`{"error", "error_description"}`) and Graph errors (`{"error": {"code",
"message"}}`) become one clear message. The token lives only for the call."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import Field, model_validator

from agentur.connections.http_access import HttpAccess, SourceError, call_json, error_text, send
from agentur.connections.kinds import MAX_URL_CHARS, ConnectionSettingsModel, EgressUrl
from agentur.egress.parse_url import Target, UrlRefusedError, parse_url
from agentur.errors import NotFoundError

SELECT = "id,name,size,file,folder,lastModifiedDateTime,webUrl"


def _describe(data: dict[str, Any]) -> str:
    error = data.get("error")
    if isinstance(error, dict):  # Graph
        return f"{error.get('code')}: {error.get('message')}"
    if isinstance(error, str):  # the identity platform's token endpoint
        described = str(data.get("error_description", "")).splitlines() or [""]
        return f"{error}: {described[0]}"
    return ""


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


@dataclass(frozen=True, slots=True)
class GraphAccess:
    settings: MicrosoftSettings
    client_secret: str
    timeout_seconds: float
    max_bytes: int

    def _http(self, base_url: str, token: str = "") -> HttpAccess:
        # token_header: the bearer token is the whole Authorization header value.
        return HttpAccess(
            base_url, "", token, self.timeout_seconds, self.max_bytes, token_header=bool(token)
        )

    async def token(self) -> str:
        url = self.settings.token_endpoint
        form = {
            "grant_type": "client_credentials",
            "client_id": self.settings.client_id,
            "client_secret": self.client_secret,
            "scope": "https://graph.microsoft.com/.default",
        }
        status, body = await send(self._http(url), "POST", url, data=form)
        if status != 200:
            raise SourceError(f"Microsoft sign-in answered {status}: {error_text(body, _describe)}")
        try:
            return str(json.loads(body)["access_token"])
        except (ValueError, KeyError, TypeError) as error:
            raise SourceError("Microsoft sign-in answered 200 without an access token") from error

    async def graph(self) -> HttpAccess:
        base = self.settings.graph_url.rstrip("/") + "/"
        return self._http(base, "Bearer " + await self.token())


def _item(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": item.get("id"),
        "name": item.get("name"),
        "is_folder": "folder" in item,
        "size": item.get("size"),
        "modified": item.get("lastModifiedDateTime"),
        "web_url": item.get("webUrl"),
    }


async def list_children(
    access: GraphAccess, drive_id: str, item_id: str | None, page_url: str | None
) -> dict[str, Any]:
    graph = await access.graph()
    if page_url:
        # A nextLink is a full URL: it must point below the connection's Graph URL.
        if not page_url.startswith(graph.base_url):
            raise SourceError("page_url is not a Graph link of this connection")
        path, params = page_url[len(graph.base_url) :], None
    else:
        where = f"items/{quote(item_id)}" if item_id else "root"
        path = f"drives/{quote(drive_id)}/{where}/children"
        params = {"$select": SELECT, "$top": "100"}
    data = await call_json(graph, "Microsoft Graph", _describe, "GET", path, params=params)
    return {
        "items": [_item(item) for item in data.get("value") or []],
        "next_page_url": data.get("@odata.nextLink"),
    }


async def download(access: GraphAccess, drive_id: str, item_id: str) -> tuple[bytes, str]:
    graph = await access.graph()
    meta = await call_json(
        graph, "Microsoft Graph", _describe, "GET",
        f"drives/{quote(drive_id)}/items/{quote(item_id)}", params={"$select": SELECT},
    )  # fmt: skip
    if "folder" in meta:
        raise NotFoundError(f"{meta.get('name')} is a folder; list it instead")
    url = f"{graph.base_url}drives/{quote(drive_id)}/items/{quote(item_id)}/content"
    status, body = await send(graph, "GET", url)
    if status >= 300:
        raise SourceError(f"Microsoft Graph answered {status}: {error_text(body, _describe)}")
    return body, str(meta.get("name") or urlsplit(url).path.rsplit("/", 1)[-1])


async def check(access: GraphAccess) -> None:
    await access.token()

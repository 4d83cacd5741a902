"""A loopback Microsoft identity platform + Graph v1.0 (documented wire formats): the
client-credentials token endpoint, drive children with `@odata.nextLink` paging, item
metadata, `/content` answered with a 302 to the download URL, and both error body shapes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.connections.json_server import JsonHandler, serving

CLIENT_ID = "app-1"
CLIENT_SECRET = "graph-Secret-5520"
ACCESS_TOKEN = "eyJ0eXAi.token.for-tests"
DRIVE = "b!drive1"
FILES = {f"item{n}": f"Notes {n}.txt" for n in range(1, 4)}
CONTENT = b"Meeting with Peter Keller, peter.keller@example.com, +41 44 555 12 34\n"


@dataclass
class GraphState:
    token_requests: list[dict[str, list[str]]] = field(default_factory=list)


@contextmanager
def graph_server() -> Iterator[tuple[str, GraphState]]:
    state = GraphState()

    class Handler(JsonHandler):
        def _graph_error(self, status: int, code: str, message: str) -> None:
            self.reply(status, {"error": {"code": code, "message": message}})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("content-length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            state.token_requests.append(form)
            if (form.get("client_secret"), form.get("client_id")) != ([CLIENT_SECRET], [CLIENT_ID]):
                described = "AADSTS7000215: Invalid client secret provided.\r\nTrace ID: 1"
                self.reply(401, {"error": "invalid_client", "error_description": described})
                return
            self.reply(200, {"token_type": "Bearer", "expires_in": 3599,
                             "access_token": ACCESS_TOKEN})  # fmt: skip

        def do_GET(self) -> None:  # noqa: N802
            if self.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
                self._graph_error(401, "InvalidAuthenticationToken", "Access token is empty.")
                return
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            parts = unquote(url.path).removeprefix("/v1.0/").split("/")
            base = f"http://127.0.0.1:{self.server.server_address[1]}/v1.0/"
            if parts[:2] != ["drives", DRIVE]:
                self._graph_error(404, "itemNotFound", "The resource could not be found.")
            elif parts[2:] == ["root", "children"]:
                items: list[dict[str, Any]] = [
                    {"id": item, "name": name, "size": len(CONTENT), "file": {}}
                    for item, name in FILES.items()
                ]
                start = int(query.get("$skiptoken", ["0"])[0])
                page: dict[str, Any] = {"value": items[start : start + 2]}
                if start + 2 < len(items):
                    page["@odata.nextLink"] = (
                        f"{base}drives/{DRIVE}/root/children?$top=2&$skiptoken={start + 2}"
                    )
                self.reply(200, page)
            elif len(parts) == 4 and parts[3] in FILES:
                self.reply(200, {"id": parts[3], "name": FILES[parts[3]], "file": {}})
            elif len(parts) == 5 and parts[3] in FILES and parts[4] == "content":
                self.send_response(302)
                self.send_header("location", f"{base}download/{parts[3]}")
                self.send_header("content-length", "0")
                self.end_headers()
            else:
                self._graph_error(404, "itemNotFound", "The resource could not be found.")

    class DownloadAware(Handler):
        def do_GET(self) -> None:  # noqa: N802
            if self.path.startswith("/v1.0/download/"):
                # The pre-authenticated download URL needs no token (Graph drops it).
                self.send_response(200)
                self.send_header("content-length", str(len(CONTENT)))
                self.end_headers()
                self.wfile.write(CONTENT)
                return
            super().do_GET()

    with serving(DownloadAware) as port:
        yield f"http://127.0.0.1:{port}", state

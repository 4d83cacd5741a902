"""A real WebDAV server on 127.0.0.1 for the tests: WsgiDAV over a folder, basic auth, served
by the standard library's threading WSGI server."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from wsgidav.wsgidav_app import WsgiDAVApp

from tests.serve_in_thread import serve_in_thread

DAV_USER = "dav-user"
DAV_PASSWORD = "dav-Secret-4410"


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _bounded_input(app: Any) -> Any:
    """wsgiref hands the raw socket as wsgi.input; WsgiDAV reads a PUT body to its end, which
    a kept-alive socket never reaches. Give it exactly Content-Length bytes."""

    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length))
        return app(environ, start_response)

    return wrapped


@contextmanager
def webdav_server(root: Path) -> Iterator[str]:
    """Serve `root` at http://127.0.0.1:<port>/dav/; yields that base URL."""
    app = WsgiDAVApp(
        {
            "provider_mapping": {"/dav": str(root)},
            "simple_dc": {"user_mapping": {"*": {DAV_USER: {"password": DAV_PASSWORD}}}},
            "http_authenticator": {
                "accept_basic": True, "accept_digest": False, "default_to_digest": False,
            },
            "verbose": 0,
            "logging": {"enable": False, "enable_loggers": []},
        }
    )  # fmt: skip
    logging.getLogger("wsgidav").setLevel(logging.ERROR)
    server = make_server(
        "127.0.0.1",
        0,
        _bounded_input(app),
        server_class=_ThreadingServer,
        handler_class=_QuietHandler,
    )
    with serve_in_thread(server):
        yield f"http://127.0.0.1:{server.server_port}/dav/"

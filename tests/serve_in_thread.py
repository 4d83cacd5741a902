"""Run a standard-library server (`socketserver`, `http.server`, `wsgiref`) in a daemon thread
for the length of a `with` block."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import BaseServer

# `shutdown()` waits for the serving loop's next poll: at the standard library's 0.5 s every
# test that used a server paid half a second in its teardown.
POLL_INTERVAL_S = 0.02


@contextmanager
def serve_in_thread(server: BaseServer) -> Iterator[None]:
    """Serve until the block ends, then stop serving and close the listening socket."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()

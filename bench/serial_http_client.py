"""A lean serial HTTP/1.1 client for `bench/api_overhead.py`: one keep-alive connection over
a raw socket, one request after the other, each answer read to its Content-Length and checked
for status 200. It costs a few tens of microseconds per request, so the figure it prints is the
server's, not an HTTP library's (httpx in the same process took about half of each round trip).

    python bench/serial_http_client.py PORT PATH KEY WARMUP COUNT

Prints one line: `<requests/s> <client CPU ms per request>`.
"""

from __future__ import annotations

import socket
import sys
import time

HEADER_END = b"\r\n\r\n"


def read_answer(connection: socket.socket, pending: bytes) -> bytes:
    """Reads one answer (headers + Content-Length body); returns what arrived beyond it."""
    while HEADER_END not in pending:
        chunk = connection.recv(65536)
        if not chunk:
            raise SystemExit("the server closed the connection")
        pending += chunk
    head, _, rest = pending.partition(HEADER_END)
    if not head.startswith(b"HTTP/1.1 200 "):
        raise SystemExit(f"unexpected answer: {head[:200]!r}")
    length = 0
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while len(rest) < length:
        chunk = connection.recv(65536)
        if not chunk:
            raise SystemExit("the server closed the connection mid-answer")
        rest += chunk
    return rest[length:]


def run(port: int, path: str, key: str, warmup: int, count: int) -> tuple[float, float]:
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {key}\r\nAccept: application/json\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = b""
        for _ in range(warmup):
            connection.sendall(request)
            pending = read_answer(connection, pending)
        cpu = time.process_time()
        started = time.perf_counter()
        for _ in range(count):
            connection.sendall(request)
            pending = read_answer(connection, pending)
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
    return count / elapsed, cpu / count * 1000


if __name__ == "__main__":
    port, path, key, warmup, count = sys.argv[1:6]
    rate, client_cpu = run(int(port), path, key, int(warmup), int(count))
    print(f"{rate:.1f} {client_cpu:.4f}")

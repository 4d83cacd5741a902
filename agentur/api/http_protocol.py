"""The HTTP/1.1 protocol `agentur serve` runs: uvicorn's own (httptools when installed, else
h11), except that a request its parser refuses — a NUL byte in a header, a broken request
line — is answered with problem+json like every other error, not uvicorn's plain text."""

from __future__ import annotations

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from agentur.api.problems import PROBLEM_JSON, problem_bytes


class ProblemHttpProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    def send_400_response(self, msg: str) -> None:
        # Both parsers close the connection after this answer, so writing the bytes directly
        # (past the parser's own state machine) is safe.
        body = problem_bytes(400, "Bad request", f"malformed HTTP request: {msg}")
        lines = [b"HTTP/1.1 400 Bad Request"]
        lines += [name + b": " + value for name, value in self.server_state.default_headers]
        lines += [
            b"content-type: " + PROBLEM_JSON.encode(),
            b"content-length: " + str(len(body)).encode(),
            b"connection: close",
        ]
        self.transport.write(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        self.transport.close()

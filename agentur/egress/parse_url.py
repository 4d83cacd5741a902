"""Strict parsing of an outbound URL (or of a mail server's bare host name), before any address
check.

Only http and https URLs; no user info (`http://trusted@evil/` confusion); no backslashes, control
characters or whitespace; IPv6 literals without zone ids; and an IPv4 address only in plain
dotted decimal. Resolvers and browsers read `0177.0.0.1`, `0x7f000001`, `2130706433` and
`127.1` as 127.0.0.1 while a naive check sees a host name, so those forms are refused with the
address they stand for — never guessed at.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import idna

from agentur.egress.addresses import IpAddress, parse_address
from agentur.errors import InvalidInputError

MAX_URL_CHARS = 8_192
DEFAULT_PORTS = {"http": 80, "https": 443}
DOTTED_QUAD = re.compile(
    r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}"
)
# A last label that an IPv4 parser (WHATWG, inet_aton) would take as a number.
NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+")
LABEL = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?")
UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")


class UrlRefusedError(InvalidInputError):
    """The URL is malformed or spelled in a way that hides its target."""

    title = "URL refused"


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: str  # lower case, ASCII (IDNA), no trailing dot; an IP in canonical form
    port: int
    ip: IpAddress | None  # set when the host is an IP literal

    @property
    def host_port(self) -> str:
        host = f"[{self.host}]" if self.ip is not None and self.ip.version == 6 else self.host
        return f"{host}:{self.port}"


def _numeric_host_refusal(host: str) -> str:
    try:
        meant = f" (it means {socket.inet_ntoa(socket.inet_aton(host))})"
    except OSError:
        return f"host {host!r} ends in a numeric label, which IPv4 parsers read as an address"
    return f"host {host!r} is an IPv4 address in a non-standard form{meant}; write dotted decimal"


def _host(raw: str) -> tuple[str, IpAddress | None]:
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:
            raise UrlRefusedError(
                f"host {raw!r} is not a valid IPv6 literal (zone ids are not allowed)"
            )
        ip = parse_address(raw[1:-1])
        if ip is None or ip.version != 6:
            raise UrlRefusedError(f"host {raw!r} is not a valid IPv6 literal")
        return str(ip), ip
    host = raw.lower().removesuffix(".")
    if not host:
        raise UrlRefusedError("the URL has no host")
    if "%" in host:
        raise UrlRefusedError(f"host {raw!r} contains percent-encoding")
    if NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        if not DOTTED_QUAD.fullmatch(host):
            raise UrlRefusedError(_numeric_host_refusal(host))
        ip = parse_address(host)
        assert ip is not None
        return str(ip), ip
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError as error:
            raise UrlRefusedError(f"host {raw!r} is not a valid host name: {error}") from error
    if len(host) > 253 or not all(LABEL.fullmatch(label) for label in host.split(".")):
        raise UrlRefusedError(f"host {raw!r} is not a valid host name")
    return host, None


def parse_url(url: str) -> Target:
    """The target of `url`, or `UrlRefusedError` naming what is wrong with it."""
    if not isinstance(url, str) or not url:
        raise UrlRefusedError("the URL is empty")
    if len(url) > MAX_URL_CHARS:
        raise UrlRefusedError(f"the URL is longer than {MAX_URL_CHARS} characters")
    if UNSAFE.search(url):
        raise UrlRefusedError("the URL contains whitespace, control characters or backslashes")
    try:
        parts = urlsplit(url)
    except ValueError as error:
        raise UrlRefusedError(f"the URL is malformed: {error}") from error
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UrlRefusedError(f"only http and https URLs are allowed, not {parts.scheme or url!r}")
    if "@" in parts.netloc:
        raise UrlRefusedError("user info in the URL is not allowed")
    raw_host, colon, raw_port = parts.netloc.rpartition(":")
    if not colon or raw_host == "" or raw_port.endswith("]"):
        raw_host, raw_port = parts.netloc, ""
    host, ip = _host(raw_host)
    if raw_port and not (raw_port.isdigit() and 0 < int(raw_port) < 65536):
        raise UrlRefusedError(f"the URL has an invalid port {raw_port!r}")
    return Target(scheme, host, int(raw_port) if raw_port else DEFAULT_PORTS[scheme], ip)


def parse_host(raw: str, port: int, scheme: str) -> Target:
    """The target of a bare host name (a mail server's `imap_host`), parsed exactly like a URL's
    host: `127.1`, `0x7f000001`, zone ids and anything that is not a host are refused. A bare
    IPv6 address may be written with or without brackets."""
    if not isinstance(raw, str) or not raw:
        raise UrlRefusedError("the host is empty")
    if len(raw) > 255 or UNSAFE.search(raw):
        raise UrlRefusedError(f"host {raw!r} is not a valid host name")
    if ":" in raw and not raw.startswith("["):
        if parse_address(raw.partition("%")[0]) is None:
            raise UrlRefusedError(
                f"host {raw!r} is not a valid host name (a host, without scheme or port)"
            )
        raw = f"[{raw}]"
    if not 0 < port < 65536:
        raise UrlRefusedError(f"port {port} is not a valid port")
    host, ip = _host(raw)
    return Target(scheme, host, port, ip)

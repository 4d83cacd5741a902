"""IPv4 and IPv6 addresses, validated by `ipaddress`."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)")
_IPV6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")


def _valid(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def find_ip_addresses(text: str) -> Iterator[Span]:
    if "." in text:
        for match in _IPV4.finditer(text):
            if key := _valid(match.group()):
                yield Span(match.start(), match.end(), key)
    if "::" in text or text.count(":") >= 7:
        for match in _IPV6.finditer(text):
            if key := _valid(match.group()):
                yield Span(match.start(), match.end(), key)


IP = Recognizer("IP", find_ip_addresses, priority=70)

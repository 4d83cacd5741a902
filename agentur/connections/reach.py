"""Outbound reach of a connection through the egress module: the connection's own host and
port are allowed for requests made with *that* connection (so an internal mail server works),
everything else follows the normal policy; the socket is pinned to the checked address."""

from __future__ import annotations

from agentur.egress.check_target import checked_address
from agentur.egress.parse_url import parse_url
from agentur.egress.policy import AllowList, EgressPolicy


def connection_policy(host_port: str, timeout_seconds: float) -> EgressPolicy:
    return EgressPolicy(timeout_seconds=timeout_seconds, allowed=AllowList.parse(host_port))


async def pinned_address(host: str, port: int, timeout_seconds: float) -> str:
    """The checked address to connect to for `host:port` of a connection."""
    target = parse_url(f"https://{host}:{port}/")  # the egress module's strict host parsing
    return await checked_address(target, connection_policy(target.host_port, timeout_seconds))

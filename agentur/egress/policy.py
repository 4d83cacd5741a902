"""The egress policy: limits, the allow-list of trusted internal targets, and the resolver.

An allow-list entry is `host`, `host:port` (`[v6]:port`) or a CIDR network (`10.1.0.0/16`):
a named host may resolve to anything, an address inside a listed network passes the address
check. Everything else must resolve only to globally routable addresses.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network
from typing import Annotated

from pydantic import AfterValidator

from agentur.egress.addresses import IpAddress, parse_address

# host, port → the addresses it resolves to (a test injects its own to simulate rebinding).
Resolver = Callable[[str, int], Awaitable[list[str]]]


async def system_resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # Order kept: the first answer is the one a normal client would connect to.
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True, slots=True)
class AllowList:
    hosts: frozenset[str] = frozenset()  # `host` or `host:port`, lower case
    networks: tuple[IPv4Network | IPv6Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> AllowList:
        """Comma-separated entries; `ValueError` names the first one that is not valid."""
        hosts: set[str] = set()
        networks: list[IPv4Network | IPv6Network] = []
        for raw in text.split(","):
            entry = raw.strip().lower()
            if not entry:
                continue
            if "/" in entry:
                try:
                    networks.append(ipaddress.ip_network(entry, strict=False))
                except ValueError as error:
                    raise ValueError(f"allow-list entry {entry!r}: {error}") from error
                continue
            hosts.add(_host_entry(entry))
        return cls(frozenset(hosts), tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.hosts or self.networks)

    def __or__(self, other: AllowList) -> AllowList:
        return AllowList(self.hosts | other.hosts, self.networks + other.networks)

    def allows_host(self, host: str, host_port: str) -> bool:
        return host in self.hosts or host_port in self.hosts

    def allows_address(self, ip: IpAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in self.networks)


def _parses(value: str) -> str:
    AllowList.parse(value)  # a typo fails at start-up, not at the first connection
    return value


# A setting holding allow-list entries, checked when the settings are read.
AllowListSetting = Annotated[str, AfterValidator(_parses)]


def _host_entry(entry: str) -> str:
    """`host`, `host:port`, `[v6]:port`, or a bare IPv6 address, in canonical form."""
    if entry.startswith("["):
        address, bracket, port = entry[1:].partition("]")
        ip = parse_address(address)
        valid_port = not port or (port[:1] == ":" and port[1:].isdigit())
        if not bracket or ip is None or not valid_port:
            raise ValueError(f"allow-list entry {entry!r} is not `[ipv6]` or `[ipv6]:port`")
        return f"[{ip}]{port}" if port else str(ip)
    if (ip := parse_address(entry)) is not None:
        return str(ip)
    host, colon, port = entry.partition(":")
    if not host or (colon and not port.isdigit()):
        raise ValueError(f"allow-list entry {entry!r} is not `host`, `host:port` or a CIDR")
    return entry


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    timeout_seconds: float = 20.0
    max_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 5
    allowed: AllowList = field(default_factory=AllowList)
    # Every address passes the address check (strict parsing and pinning still apply): for a
    # deployment whose API catalogs call internal services on purpose.
    allow_private: bool = False
    resolve: Resolver = system_resolve

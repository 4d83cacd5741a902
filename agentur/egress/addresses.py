"""Which IP addresses an outbound request may reach: only globally routable ones.

`ipaddress.is_global` alone is not enough (Python 3.11 calls 6to4, NAT64 with an embedded
private IPv4, 192.0.0.0/24 hosts and some multicast ranges global), so the ranges that embed
or reach internal addresses are refused explicitly, each with a reason a person understands.
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

IpAddress = IPv4Address | IPv6Address

CGNAT = IPv4Network("100.64.0.0/10")  # shared address space; 100.100.100.200 is a metadata host
IETF_PROTOCOL = IPv4Network("192.0.0.0/24")
SIX_TO_FOUR = IPv6Network("2002::/16")  # embeds any IPv4 address, e.g. 169.254.169.254
NAT64 = IPv6Network("64:ff9b::/96")
NAT64_LOCAL = IPv6Network("64:ff9b:1::/48")
AWS_METADATA_V6 = IPv6Network("fd00:ec2::/32")


def parse_address(text: str) -> IpAddress | None:
    """The address `text` spells in canonical form (no zone id), or None."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def refusal(ip: IpAddress) -> str | None:
    """Why `ip` must not be reached, or None when it is a globally routable address."""
    if isinstance(ip, IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"an IPv4-mapped IPv6 address (of {ip.ipv4_mapped})"
        if ip in SIX_TO_FOUR:
            return f"a 6to4 address (it embeds {ip.sixtofour})"
        if ip in NAT64:
            embedded = IPv4Address(int(ip) & 0xFFFFFFFF)
            if reason := refusal(embedded):
                return f"a NAT64 address embedding {embedded}, {reason}"
            return None
        if ip in NAT64_LOCAL:
            return "a local-use NAT64 address"
        if ip in AWS_METADATA_V6:
            return "a cloud metadata address"
    if ip.is_unspecified:
        return "the unspecified address (it reaches this machine)"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, IPv4Address) and ip in CGNAT:
        return "a carrier-grade NAT address (cloud metadata lives there too)"
    if isinstance(ip, IPv4Address) and ip in IETF_PROTOCOL:
        return "an IETF protocol address (192.0.0.0/24)"
    if ip.is_reserved:
        return "a reserved address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global:
        return "not a globally routable address"
    return None

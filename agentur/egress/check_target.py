"""The address check: resolve a parsed target once and decide which address may be used.

The address returned here is the one the connection is pinned to, so what was checked is what
is reached; a DNS answer that changes afterwards (rebinding) has nothing left to change.
"""

from __future__ import annotations

import asyncio

from agentur.egress.addresses import parse_address, refusal
from agentur.egress.parse_url import Target, parse_url
from agentur.egress.policy import EgressPolicy
from agentur.errors import ForbiddenError, InvalidInputError

INTERNAL_NAMES = frozenset({"localhost", "metadata.google.internal", "metadata", "instance-data"})


class EgressRefusedError(ForbiddenError):
    title = "Egress refused"


class UnresolvedHostError(EgressRefusedError):
    """The host name has no address (now): nothing to connect to, nothing reached."""


class EgressRuleError(InvalidInputError):
    """A setting names a target the egress rule refuses: 422 when it is saved."""

    title = "Egress refused"


RULE = (
    "the egress rule allows only globally routable addresses unless the operator lists the "
    "target in AGENTUR_EGRESS_ALLOWED_HOSTS"
)


def _is_internal_name(host: str) -> bool:
    return host in INTERNAL_NAMES or host.endswith(".localhost")


async def checked_address(target: Target, policy: EgressPolicy) -> str:
    """The address to connect to for `target`, or `EgressRefusedError`."""
    named = policy.allowed.allows_host(target.host, target.host_port)
    if target.ip is not None:
        addresses = [str(target.ip)]
    else:
        if _is_internal_name(target.host) and not (named or policy.allow_private):
            raise EgressRefusedError(f"{target.host!r} is an internal host name")
        try:
            addresses = await policy.resolve(target.host, target.port)
        except (OSError, UnicodeError) as error:
            raise UnresolvedHostError(f"host {target.host!r} does not resolve") from error
        if not addresses:
            raise UnresolvedHostError(f"host {target.host!r} does not resolve")
    if not (named or policy.allow_private):
        # Every answer must pass: a resolver may hand out any of them, and the first one is
        # not more trustworthy than the rest.
        for text in addresses:
            ip = parse_address(text.split("%")[0])
            if ip is None:
                raise EgressRefusedError(f"host {target.host!r} resolved to {text!r}")
            if policy.allowed.allows_address(ip):
                continue
            if reason := refusal(ip):
                shown = target.host if target.ip is not None else f"{target.host} ({ip})"
                raise EgressRefusedError(f"{shown} is not allowed: it is {reason}")
    return addresses[0]


async def check_url(url: str, policy: EgressPolicy) -> str:
    """Parse and check `url` (see `parse_url`, `checked_address`); returns the address."""
    return await checked_address(parse_url(url), policy)


async def check_saved_target(where: str, target: Target, policy: EgressPolicy) -> None:
    """The check when a setting naming `target` is saved: `EgressRuleError` (422, naming `where`
    and the rule) for a target refused now. A name that does not resolve (within the policy's
    time) is accepted — every connect checks again, as DNS answers change."""
    try:
        async with asyncio.timeout(policy.timeout_seconds):
            await checked_address(target, policy)
    except (UnresolvedHostError, TimeoutError):
        return
    except EgressRefusedError as error:
        raise EgressRuleError(f"{where}: {error.detail} ({RULE})") from error

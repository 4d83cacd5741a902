"""Outbound reach of a connection through the egress module — the same rule as every other
outbound request: only globally routable addresses, unless the operator lists the target in
`AGENTUR_EGRESS_ALLOWED_HOSTS`. A connection's own settings never widen it. Targets are checked
when a connection is saved (422) and again at every connect; sockets are pinned to the checked
address."""

from __future__ import annotations

from agentur.connections.kinds import ConnectionSettingsModel
from agentur.egress.check_target import check_saved_target, checked_address
from agentur.egress.parse_url import Target
from agentur.egress.policy import EgressPolicy
from agentur.egress.settings import allowed_hosts

DEFAULT_MAX_BYTES = EgressPolicy().max_bytes


def connection_policy(timeout_seconds: float, max_bytes: int = DEFAULT_MAX_BYTES) -> EgressPolicy:
    return EgressPolicy(
        timeout_seconds=timeout_seconds, max_bytes=max_bytes, allowed=allowed_hosts()
    )


async def pinned_address(target: Target, timeout_seconds: float) -> str:
    """The checked address to connect to for `target` (a mail server)."""
    return await checked_address(target, connection_policy(timeout_seconds))


async def check_saved_targets(
    kind: str, settings: ConnectionSettingsModel, timeout_seconds: float
) -> None:
    """`EgressRuleError` (422) when a target in `settings` is refused now."""
    policy = connection_policy(timeout_seconds)
    for field, target in settings.targets():
        await check_saved_target(f"{kind} settings: {field}", target, policy)

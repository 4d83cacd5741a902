"""The one exception list of the egress rule: targets an operator trusts although they are not
globally routable (an intranet mail server, a WebDAV share on the LAN, a test server on
loopback). It applies to everything that connects out — tools, connections, API catalogs.

The settings root reads it once; the runtime installs it for the process when it is built
(`use_allowed_hosts`), as it does the name-length limit: every outbound connection, down to a
connection kind's socket, asks `allowed_hosts()` instead of carrying the list through each call."""

from __future__ import annotations

import logging
from functools import cache

from pydantic import Field

from agentur.config import PartSettings
from agentur.egress.policy import AllowList, AllowListSetting

logger = logging.getLogger(__name__)


class EgressSettings(PartSettings):
    egress_allowed_hosts: AllowListSetting = Field(
        default="",
        description="Comma-separated `host`, `host:port` or CIDR entries exempt from the "
        "refusal of non-global addresses, for every outbound connection.",
    )
    agent_egress_allowed_hosts: AllowListSetting = Field(
        default="",
        description="Deprecated name of `egress_allowed_hosts`; used only when that is empty.",
    )

    @property
    def allowed(self) -> AllowList:
        if self.egress_allowed_hosts or not self.agent_egress_allowed_hosts:
            return AllowList.parse(self.egress_allowed_hosts)
        _warn_deprecated_name()
        return AllowList.parse(self.agent_egress_allowed_hosts)


@cache
def _warn_deprecated_name() -> None:  # once per process, not per connection
    logger.warning(
        "AGENTUR_AGENT_EGRESS_ALLOWED_HOSTS is deprecated; rename it to "
        "AGENTUR_EGRESS_ALLOWED_HOSTS (it applies to every outbound connection)"
    )


_allowed = AllowList()


def use_allowed_hosts(allowed: AllowList) -> None:
    """Installs the configured exceptions for this process (the runtime, when it is built)."""
    global _allowed
    _allowed = allowed


def allowed_hosts() -> AllowList:
    """The configured exceptions (none until a runtime installs them)."""
    return _allowed

"""Tests reach their servers on loopback exactly as the README tells an operator to reach an
internal service: by listing it in `AGENTUR_EGRESS_ALLOWED_HOSTS` as `host:port`."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from agentur.egress import settings as egress_settings
from agentur.egress.settings import EgressSettings

SETTING = "AGENTUR_EGRESS_ALLOWED_HOSTS"


def host_port(target: str | int) -> str:
    """`127.0.0.1:<port>` for a port, `host:port` for a URL."""
    if isinstance(target, int):
        return f"127.0.0.1:{target}"
    parts = urlsplit(target)
    return f"{parts.hostname}:{parts.port}" if parts.scheme else target


def allow(monkeypatch: pytest.MonkeyPatch, *targets: str | int) -> None:
    """List `targets` (ports on 127.0.0.1, URLs or `host:port`), adding to what is listed."""
    listed = [entry for entry in os.environ.get(SETTING, "").split(",") if entry]
    monkeypatch.setenv(SETTING, ",".join([*listed, *(host_port(t) for t in targets)]))
    reread(monkeypatch)


def reread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's list read again from the environment, as a restart would (the runtime
    installs it once, when it is built); undone with `monkeypatch`."""
    monkeypatch.setattr(egress_settings, "_allowed", EgressSettings().allowed)

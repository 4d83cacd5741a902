"""Settings are read once, when the runtime is built. A test that changes the environment after
its runtime exists reads them again, as a restart of the process would."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agentur.runtime_parts import RuntimeParts
from agentur.settings import AllSettings


def reread_settings(runtime: RuntimeParts) -> None:
    runtime.all_settings = AllSettings.from_environment(runtime.settings)


def settings_runtime() -> Any:
    """A stand-in runtime for tools run without storage: only the settings, read now."""
    return SimpleNamespace(all_settings=AllSettings.from_environment())

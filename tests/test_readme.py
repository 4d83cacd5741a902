"""The README keeps its promises: exactly two set-up commands, and every setting documented."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import agentur
from agentur.config import PartSettings, Settings

README = (Path(__file__).parent.parent / "README.md").read_text()
MIGRATIONS = "agentur.storage.migrations"
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _all_part_settings() -> list[type[PartSettings]]:
    for module in pkgutil.walk_packages(agentur.__path__, "agentur."):
        # Alembic's scripts only run inside Alembic; they hold no settings.
        if not module.name.startswith(MIGRATIONS):
            importlib.import_module(module.name)
    found: list[type[PartSettings]] = []
    pending = list(PartSettings.__subclasses__())
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def _undocumented(cls: type[PartSettings]) -> list[str]:
    return [
        f"AGENTUR_{field.upper()}"
        for field in cls.model_fields
        if f"`AGENTUR_{field.upper()}`" not in README
    ]


def _setup_commands() -> tuple[str, str]:
    blocks = [block.strip() for block in FENCED.findall(README)]
    assert len(blocks) == 2, blocks
    run, test = blocks
    assert "\n" not in run and "\n" not in test
    return run, test


def test_exactly_two_fenced_setup_commands_both_locked() -> None:
    run, test = _setup_commands()
    project = "pip install --no-deps --no-build-isolation -e ."
    assert f"pip install -r requirements/app.txt && {project}" in run
    assert run.endswith("agentur serve")
    assert f"pip install -r requirements/test.txt && {project}" in test
    assert test.endswith("python -m pytest")


def test_ci_runs_the_readme_test_command_step_by_step() -> None:
    """`.ci/run` has each step of the README's test command as a line of its own, in order,
    and runs no other pip or pytest command (an extra `pip install --upgrade pip` once hid
    that the documented install did not work with the venv's own pip)."""
    _, test = _setup_commands()
    steps = [step.strip() for step in test.split("&&")]
    ci = [
        line
        for line in (Path(__file__).parent.parent / ".ci" / "run").read_text().splitlines()
        if not line.lstrip().startswith("#")
    ]
    assert [line for line in ci if line in steps] == steps
    others = [line for line in ci if line not in steps and re.search(r"\b(pip|pytest)\b", line)]
    assert others == []


def test_core_settings_are_documented() -> None:
    assert _undocumented(Settings) == []


def test_every_part_settings_field_is_documented() -> None:
    classes = _all_part_settings()
    assert Settings in classes
    missing = {f"{cls.__module__}.{cls.__qualname__}": _undocumented(cls) for cls in classes}
    missing = {name: fields for name, fields in missing.items() if fields}
    assert not missing, f"settings missing from README.md: {missing}"


@pytest.mark.parametrize("heading", ["## Configuration", "## API overview"])
def test_reference_sections_exist(heading: str) -> None:
    assert f"\n{heading}\n" in README

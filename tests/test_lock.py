"""The lock files agree with pyproject.toml: every direct dependency (and the build backend) is
pinned, within its range, with hashes; the application's lock matches the test lock where they
overlap. Regenerate with `scripts/lock` after changing dependencies (README "Locked installs")."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCKS = {name: ROOT / "requirements" / f"{name}.txt" for name in ("app", "test", "bench")}
# `name==version [; marker] \` opens an entry; its `--hash=` lines follow.
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def pins(lock_text: str) -> dict[str, set[Version]]:
    """Pinned versions by normalized name (a name is pinned twice where versions differ by
    environment, e.g. numpy for Python 3.11 and for 3.12+)."""
    found: dict[str, set[Version]] = {}
    for line in lock_text.splitlines():
        if match := PIN.match(line):
            found.setdefault(canonicalize_name(match[1]), set()).add(Version(match[2]))
    return found


def unhashed(lock_text: str) -> list[str]:
    """Pins without a `--hash` (pip's hash-checking mode refuses the whole file then)."""
    entries = re.split(r"\n(?=[A-Za-z0-9])", lock_text)
    return [entry.split()[0] for entry in entries if PIN.match(entry) and "--hash=" not in entry]


def direct_requirements(pyproject: dict[str, Any], extras: tuple[str, ...]) -> list[Requirement]:
    """The project's dependencies, the build backend, and the requirements of `extras`, the
    project's own extras they name (`agentur[postgres,…]`) expanded."""
    name = canonicalize_name(pyproject["project"]["name"])
    declared = pyproject["project"].get("optional-dependencies", {})
    wanted = [*pyproject["project"]["dependencies"], *pyproject["build-system"]["requires"]]
    pending, seen = list(extras), set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for text in declared[current]:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == name:
                pending.extend(requirement.extras)
            else:
                wanted.append(text)
    return [Requirement(text) for text in wanted]


def disagreements(pyproject: dict[str, Any], extras: tuple[str, ...], lock_text: str) -> list[str]:
    locked = pins(lock_text)
    problems = []
    for requirement in direct_requirements(pyproject, extras):
        versions = locked.get(canonicalize_name(requirement.name))
        if not versions:
            problems.append(f"{requirement} is not in the lock")
            continue
        outside = sorted(str(v) for v in versions if not requirement.specifier.contains(v, True))
        if outside:
            problems.append(f"{requirement} is locked at {', '.join(outside)}")
    return problems


@pytest.mark.parametrize(
    ("lock", "extras"), [("app", ()), ("test", ("test",)), ("bench", ("test", "bench", "minilm"))]
)
def test_lock_has_every_direct_dependency_in_range_with_hashes(lock: str, extras: tuple[str, ...]):
    text = LOCKS[lock].read_text()
    assert disagreements(PYPROJECT, extras, text) == [], "run scripts/lock"
    assert unhashed(text) == []


@pytest.mark.parametrize("lock", ["app", "bench"])
def test_other_locks_pin_what_the_test_lock_pins(lock: str) -> None:
    other, test = (pins(LOCKS[name].read_text()) for name in (lock, "test"))
    assert {
        name: versions for name, versions in other.items() if test.get(name, versions) != versions
    } == {}
    if lock == "app":  # the application alone: a subset of what the suite runs on
        assert set(other) <= set(test)
    else:  # everything the suite runs on, plus the bench extras
        assert set(test) <= set(other)


def test_a_new_or_narrowed_dependency_is_reported() -> None:
    """The check itself: a dependency missing from the lock, and one whose new range excludes
    the locked version, are both named."""
    changed = copy.deepcopy(PYPROJECT)
    changed["project"]["dependencies"].append("left-pad-nowhere>=1")
    fastapi = next(d for d in changed["project"]["dependencies"] if d.startswith("fastapi"))
    changed["project"]["dependencies"].remove(fastapi)
    changed["project"]["dependencies"].append("fastapi<0.1")
    changed["project"]["optional-dependencies"]["sandbox"].append("polars>=1")
    text = LOCKS["test"].read_text()
    problems = disagreements(changed, ("test",), text)
    assert problems[0] == "left-pad-nowhere>=1 is not in the lock"
    assert problems[1].startswith("fastapi<0.1 is locked at ")
    assert problems[2:] == ["polars>=1 is not in the lock"]  # reached through agentur[sandbox]
    assert disagreements(changed, (), LOCKS["app"].read_text())[:2] == problems[:2]
    assert unhashed("fastapi==0.1 \\\n    # via x\n") == ["fastapi==0.1"]


def test_an_extra_that_the_venvs_pip_cannot_match_is_pinned_itself() -> None:
    """pip 23.2 (what `python3 -m venv` brings) compares extras as spelled: a dependency asking
    for `lxml[html_clean]` of an lxml that declares `html-clean` becomes a requirement of its
    own, which pip then fills with the newest release — refused in hash-checking mode. Every
    such request among the installed packages must be pinned in the test lock as written."""
    from importlib.metadata import distributions

    lock = (ROOT / "requirements" / "test.txt").read_text()
    declared = {
        (dist.metadata["Name"] or "").lower(): set(dist.metadata.get_all("Provides-Extra") or [])
        for dist in distributions()
    }
    missing = []
    for dist in distributions():
        for line in dist.requires or []:
            requirement = Requirement(line)
            name = requirement.name.lower()
            if requirement.marker is not None or name not in declared:
                continue
            for extra in requirement.extras - declared[name]:
                if f"\n{requirement.name}[{extra}]==" not in lock:
                    missing.append(f"{requirement.name}[{extra}] (via {dist.metadata['Name']})")
    assert missing == [], missing

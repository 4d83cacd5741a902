"""Settings are read from the environment once, by the settings root (agentur/settings.py), and
handed down: no other module of the package constructs a settings class — neither its own part's
nor another's — by calling it or by naming it as a default factory."""

from __future__ import annotations

import ast
from pathlib import Path

import agentur
from agentur.config import PartSettings

PACKAGE_DIR = Path(agentur.__file__).parent
COMPOSITION_ROOT = PACKAGE_DIR / "settings.py"


def settings_class_names() -> set[str]:
    found: set[str] = set()
    pending = list(PartSettings.__subclasses__())
    while pending:
        cls = pending.pop()
        found.add(cls.__name__)
        pending.extend(cls.__subclasses__())
    return found | {PartSettings.__name__}


def constructions(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each call of, or default factory naming, a class in `names`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in names:
                found.append((node.lineno, name))
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "default_factory" and getattr(value, "id", None) in names:
                    found.append((node.lineno, str(getattr(value, "id", ""))))
    return found


def test_the_scan_sees_a_call_an_attribute_call_and_a_default_factory() -> None:
    source = (
        "a = AgentSettings()\n"
        "b = settings.AiSettings(x=1)\n"
        "c: int = field(default_factory=KnowledgeSettings)\n"
        "d = AllSettings.from_environment()\n"  # the root's own factory: not a construction
        "e = MandateAiSettings(mandate_id='m')\n"  # a table row, not a settings class
    )
    names = {"AgentSettings", "AiSettings", "KnowledgeSettings"}
    assert constructions(source, names) == [
        (1, "AgentSettings"),
        (2, "AiSettings"),
        (3, "KnowledgeSettings"),
    ]


def test_every_part_settings_class_is_known_to_the_scan() -> None:
    # Importing the root imports every part's settings module.
    import agentur.settings  # noqa: F401

    names = settings_class_names()
    assert {"Settings", "AiSettings", "AgentSettings", "OcrSettings", "McpServerSettings"} <= names


def test_only_the_settings_root_constructs_settings() -> None:
    import agentur.settings  # noqa: F401

    names = settings_class_names()
    offenders = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if path == COMPOSITION_ROOT or "migrations" in path.parts:
            continue
        for line, name in constructions(path.read_text(encoding="utf-8"), names):
            offenders.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{line} {name}")
    assert not offenders, (
        "settings constructed outside agentur/settings.py (take them from the runtime, a "
        "constructor argument or the tool's run context):\n" + "\n".join(offenders)
    )

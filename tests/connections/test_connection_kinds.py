"""Connection kinds are modules: each module of agentur/connections/kind/ declares one kind, and
the settings check, the `test` action, the toolboxes and the CLI all read them from there."""

from __future__ import annotations

import pkgutil

import pytest

import agentur.connections.kind as kind_package
from agentur.connections.connection_kind import (
    ConnectionKind,
    KindToolbox,
    connection_kinds,
    validate_settings,
)
from agentur.connections.kinds import UrlSettings
from agentur.errors import InvalidInputError
from agentur.tools.toolboxes import BASE_TOOLBOXES, TOOLBOXES, with_connection_toolboxes


def test_every_kind_module_declares_its_kind() -> None:
    modules = {info.name for info in pkgutil.iter_modules(kind_package.__path__)}
    kinds = connection_kinds()
    assert set(kinds) == modules
    for name, kind in kinds.items():
        assert kind.name == name and callable(kind.access) and callable(kind.check)


def test_settings_are_checked_by_the_kinds_model() -> None:
    assert validate_settings("jira", {"base_url": "https://x.example", "email": "a@b.ch"})
    with pytest.raises(InvalidInputError, match="jira settings: email"):
        validate_settings("jira", {"base_url": "https://x.example"})
    with pytest.raises(
        InvalidInputError, match="unknown connection kind 'fax'; known: \\['clickup'"
    ):
        validate_settings("fax", {})


def test_a_kinds_toolbox_is_listed_after_the_box_it_names(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The listing the model sees keeps the order it had before kinds were modules.
    assert list(TOOLBOXES) == [
        "core", "ai", "documents", "datasources", "web", "language", "email", "sharepoint",
        "clickup", "jira", "code", "mcp", "workflow", "trustee",
    ]  # fmt: skip
    assert TOOLBOXES["jira"].requires_connection == "jira"
    assert TOOLBOXES["mcp"].load_tools is not None

    async def check(access: object) -> None:
        return None

    fax = ConnectionKind(
        "fax", UrlSettings, lambda *_: None, check, KindToolbox("fax", "Faxes.", after="nowhere")
    )
    monkeypatch.setattr(
        "agentur.tools.toolboxes.connection_kinds", lambda: {**connection_kinds(), "fax": fax}
    )
    boxes = [box.id for box in with_connection_toolboxes(BASE_TOOLBOXES)]
    assert boxes[-1] == "fax" and boxes[:-1] == list(TOOLBOXES)

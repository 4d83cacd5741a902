"""The scopes a file can have (see scopes.py for who sees what). Apart, so the CLI can name
them in its options without importing the database layer."""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    personal = "personal"
    feature_instance = "feature_instance"
    mandate = "mandate"
    global_ = "global"

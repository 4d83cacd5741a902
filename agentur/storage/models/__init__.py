"""Typed SQLAlchemy models, one module per part. Importing this package registers every table."""

from agentur.storage.models import (  # noqa: F401  (register tables)
    agent,
    ai,
    assistant,
    connections,
    knowledge,
    meetings,
    trustee,
)
from agentur.storage.models.accounts import (
    ApiKey,
    FeatureInstance,
    Mandate,
    Membership,
    User,
    WebSession,
    WebSessionKey,
)
from agentur.storage.models.base import Base, new_id, utc_now
from agentur.storage.models.workflows import Workflow, WorkflowMessage
from agentur.storage.models.workspace import ROOT_FOLDER_KEY, File, FileTag, Folder

__all__ = [
    "ROOT_FOLDER_KEY",
    "ApiKey",
    "Base",
    "FeatureInstance",
    "File",
    "FileTag",
    "Folder",
    "Mandate",
    "Membership",
    "User",
    "WebSession",
    "WebSessionKey",
    "Workflow",
    "WorkflowMessage",
    "new_id",
    "utc_now",
]

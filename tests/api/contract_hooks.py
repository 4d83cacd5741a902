"""Schemathesis hooks: the rules JSON Schema cannot state, taught to the request generator.

Each hook keeps generated requests to what the document plus these documented cross-field
rules allow; none of them hides an answer. Filters drop cases a rule forbids; where almost no
generated value could pass (the feature-data routes' columns and import files, which hang on
the chosen table), `map_case` repairs positive cases instead (contract_feature_cases.py).
Used by tests/api/test_openapi_contract.py and by the CLI
(`SCHEMATHESIS_HOOKS=tests.api.contract_hooks schemathesis run …`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import schemathesis
from pydantic import BaseModel, ValidationError

from agentur.assistant.definition import ApiCatalog, AssistantDefinition, Faq, Flow, HelpDesk
from agentur.connections.connection_kind import validate_settings
from agentur.egress.check_target import EgressRefusedError, checked_address
from agentur.egress.policy import EgressPolicy
from agentur.errors import InvalidInputError
from agentur.workspace.file_attributes import MAX_TAGS
from tests.api.contract_feature_cases import repair_feature_case

# Bodies checked by the assistant's own model: unique ids, references between steps, desks
# and endpoints, compilable regexes, known time zones (pydantic's `value_error`s).
DEFINITION_MODELS: dict[str, type[BaseModel]] = {
    "/v1/assistants": AssistantDefinition,
    "/v1/assistants/{assistant_id}": AssistantDefinition,
    "/v1/assistants/{assistant_id}/api-catalog": ApiCatalog,
    "/v1/assistants/{assistant_id}/faqs": Faq,
    "/v1/assistants/{assistant_id}/faqs/{item_id}": Faq,
    "/v1/assistants/{assistant_id}/flows": Flow,
    "/v1/assistants/{assistant_id}/flows/{item_id}": Flow,
    "/v1/assistants/{assistant_id}/help-desks": HelpDesk,
    "/v1/assistants/{assistant_id}/help-desks/{item_id}": HelpDesk,
}
# Steps that name another part of the assistant (a help desk, an API endpoint): a flow added
# on its own can only hold them when the assistant has that part.
REFERRING_STEPS = {"handoff", "call_api"}


def _semantically_invalid(model: type[BaseModel], body: Any) -> bool:
    try:
        model.model_validate(body)
    except ValidationError as error:
        return all(item["type"] == "value_error" for item in error.errors())
    return False


def _names_knowledge(body: Any) -> bool:
    """Knowledge ids must name files and folders of the mandate; generated ones never do."""
    knowledge = body.get("knowledge") if isinstance(body, dict) else None
    return isinstance(knowledge, dict) and any(
        knowledge.get(key) for key in ("file_ids", "folder_ids")
    )


def _keeps_definition_rules(path: str, body: Any) -> bool:
    model = DEFINITION_MODELS.get(path)
    if model is None:
        return True
    if model is AssistantDefinition and _names_knowledge(body):
        return False
    if model is Flow and isinstance(body, dict):
        steps = body.get("steps")
        if isinstance(steps, list) and any(
            isinstance(step, dict) and str(step.get("kind")) in REFERRING_STEPS for step in steps
        ):
            return False
    return not _semantically_invalid(model, body)


def _usage_interval_ordered(query: dict[str, Any] | None) -> bool:
    """`GET /v1/billing/usage` covers [from, to): `to` after `from`."""
    start, end = (query or {}).get("from"), (query or {}).get("to")
    return not (isinstance(start, str) and isinstance(end, str) and end <= start)


def _section_range_ordered(query: dict[str, Any] | None) -> bool:
    """`GET /v1/files/{file_id}/section` reads [start, end): `end` not before `start`."""
    start, end = (query or {}).get("start"), (query or {}).get("end")
    return not (isinstance(start, int) and isinstance(end, int) and end < start)


def _upload_rules_kept(case: Any) -> bool:
    """A `feature_instance` upload needs the `X-Feature-Instance` header naming the instance;
    the tags of all `tags` values, split at commas, are at most MAX_TAGS."""
    body = case.body if isinstance(case.body, dict) else {}
    headers = {key.lower(): value for key, value in (case.headers or {}).items()}
    if body.get("scope") == "feature_instance" and not headers.get("x-feature-instance"):
        return False
    tags = body.get("tags")
    values = tags if isinstance(tags, list) else [tags] if isinstance(tags, str) else []
    return sum(len(str(value).split(",")) for value in values) <= MAX_TAGS


async def _resolves_publicly(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]  # never used to connect: only literals and names are judged


def _connection_settings_fit(method: str, body: Any) -> bool:
    """A connection's `settings` follow its kind (each kind's own model) and name no target
    the egress rule refuses by its spelling alone (an IP literal, `localhost`); a PATCH merges
    them into the current settings, so only the stored kind can judge them."""
    if not isinstance(body, dict) or "settings" not in body:
        return True
    if method == "PATCH":
        return body.get("settings") is None
    try:
        settings = validate_settings(str(body.get("kind")), body.get("settings") or {})
        policy = EgressPolicy(resolve=_resolves_publicly)
        for _, target in settings.targets():
            asyncio.run(checked_address(target, policy))
    except (InvalidInputError, EgressRefusedError):
        return False
    return True


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    # Case-level, so the rules hold in every phase (coverage cases skip the per-part hooks).
    path, method = case.operation.path, case.method.upper()
    if path == "/v1/billing/usage":
        return _usage_interval_ordered(case.query)
    if path == "/v1/files/{file_id}/section":
        return _section_range_ordered(case.query)
    if path == "/v1/files" and method == "POST":
        return _upload_rules_kept(case)
    if path.startswith("/v1/connections"):
        return _connection_settings_fit(method, case.body)
    if method in ("POST", "PUT"):
        return _keeps_definition_rules(path, case.body)
    return True


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if case.operation.path.startswith("/v1/features/instances/{instance_id}/"):
        return repair_feature_case(case)
    return case

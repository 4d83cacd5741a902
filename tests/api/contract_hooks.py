"""Schemathesis hooks: the rules JSON Schema cannot state, taught to the request generator.

Each hook keeps generated requests to what the document plus these documented cross-field
rules allow; none of them hides an answer. Used by tests/api/test_openapi_contract.py and by
the CLI (`SCHEMATHESIS_HOOKS=tests.api.contract_hooks schemathesis run …`).
"""

from __future__ import annotations

from typing import Any

import schemathesis
from pydantic import BaseModel, ValidationError

from agentur.assistant.definition import ApiCatalog, AssistantDefinition, Faq, Flow, HelpDesk
from agentur.connections.kinds import validate_settings
from agentur.errors import InvalidInputError
from agentur.features.instances import FEATURES, InstanceRef
from agentur.features.query_tables import (
    AggregateArguments,
    Filter,
    QueryArguments,
    _conditions,
    aggregate_statement,
)
from agentur.workspace.file_attributes import MAX_TAGS

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


def _connection_settings_fit(method: str, body: Any) -> bool:
    """A connection's `settings` follow its kind (each kind's own model); a PATCH merges them
    into the current settings, so only the stored kind can judge them."""
    if not isinstance(body, dict) or "settings" not in body:
        return True
    if method == "PATCH":
        return body.get("settings") is None
    try:
        validate_settings(str(body.get("kind")), body.get("settings") or {})
    except InvalidInputError:
        return False
    return True


FEATURE = next(iter(FEATURES.values()))
FEATURE_INSTANCE = InstanceRef(id="-", mandate_id="-", name="-", feature=FEATURE)


def _usable_filter(schema: Any, item: Any) -> bool:
    try:
        _conditions(schema, [Filter.model_validate(item)])
    except (InvalidInputError, ValidationError):
        return False
    return True


def _repair_feature_body(path: str, body: Any) -> Any:
    """Feature-data requests name columns of their table, give filter values of the column's
    type and never SUM/AVG a balance or total column. The generator knows the table names (an
    enum) but not which columns each table has, so generated column references are mapped
    onto the table's own; bodies the schema itself refuses stay as they are (they test the
    refusal)."""
    model: Any = AggregateArguments if path.endswith("/aggregate") else QueryArguments
    try:
        args = model.model_validate(body)
    except (ValidationError, TypeError):
        return body
    schema = FEATURE.tables[args.table]
    known = list(schema.columns)
    body = dict(body)
    for key in ("columns", "group_by"):
        if key in body:
            body[key] = [name for name in body[key] if name in schema.columns]
    if "order_by" in body:
        body["order_by"] = [key for key in body["order_by"] if key.lstrip("-") in known]
    if "filters" in body:
        body["filters"] = [item for item in body["filters"] if _usable_filter(schema, item)]
    if model is AggregateArguments:
        try:
            aggregate_statement(schema, FEATURE_INSTANCE, model.model_validate(body))
        except (InvalidInputError, KeyError):
            body["function"], body["column"] = "COUNT", None
    return body


def _header_only_file(case: Any) -> None:
    """An import is a CSV whose header row names the table's columns: a header alone imports
    nothing and is valid for every table."""
    table = FEATURE.tables[case.path_parameters["table"]]
    header = ",".join(column for column in table.columns).encode()
    case.body = {"file": header + b"\n"}


def _connection_settings_fit(method: str, body: Any) -> bool:
    """A connection's `settings` follow its kind (each kind's own model); a PATCH merges them
    into the current settings, so only the stored kind can judge them."""
    if not isinstance(body, dict) or "settings" not in body:
        return True
    if method == "PATCH":
        return body.get("settings") is None
    try:
        validate_settings(str(body.get("kind")), body.get("settings") or {})
    except InvalidInputError:
        return False
    return True


def _feature_arguments_fit(path: str, body: Any) -> bool:
    """Feature-data requests name a table of the instance's feature and columns of that table,
    never SUM/AVG a balance or total column, and give filter values of the column's type; an
    import is a CSV/XLSX whose header row names the table's columns (generated files never do).
    Bodies the schema itself refuses go through: they test the refusal."""
    if path.endswith("/import"):
        return False
    if not isinstance(body, dict):
        return True
    try:
        args: Any = (AggregateArguments if path.endswith("/aggregate") else QueryArguments)(**body)
    except (ValidationError, TypeError):
        return True
    feature = next(iter(FEATURES.values()))
    schema = feature.tables.get(args.table)
    if schema is None:
        return False
    instance = InstanceRef(id="-", mandate_id="-", name="-", feature=feature)
    try:
        if isinstance(args, AggregateArguments):
            aggregate_statement(schema, instance, args)
        else:
            for name in [*args.columns, *(key.lstrip("-") for key in args.order_by)]:
                schema.column(name)
            _conditions(schema, args.filters)
    except (InvalidInputError, KeyError):
        return False
    return True


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    # Case-level, so the rules hold in every phase (coverage cases skip the per-part hooks).
    path, method = case.operation.path, case.method.upper()
    if path == "/v1/billing/usage":
        return _usage_interval_ordered(case.query)
    if path == "/v1/files" and method == "POST":
        return _upload_rules_kept(case)
    if path.startswith("/v1/connections"):
        return _connection_settings_fit(method, case.body)
    if method in ("POST", "PUT"):
        return _keeps_definition_rules(path, case.body)
    return True


def _positive(case: Any) -> bool:
    """Only cases meant to fit the schema are repaired; a negative case tests the refusal."""
    meta = getattr(case, "_meta", None)
    if meta is None:
        return True
    modes = [meta.generation.mode, *(info.mode for info in meta.components.values())]
    return all(mode.is_positive for mode in modes)


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    path = case.operation.path
    if not _positive(case):
        return case
    if (
        path.endswith("/tables/{table}/import")
        and case.path_parameters.get("table") in FEATURE.tables
        and isinstance(case.body, dict)
        and isinstance(case.body.get("file"), bytes | str)
    ):
        # Only a body the schema allows gets a real file; a malformed one tests the refusal.
        _header_only_file(case)
    elif path.endswith(("/query", "/aggregate")) and path.startswith("/v1/features/"):
        case.body = _repair_feature_body(path, case.body)
    return case

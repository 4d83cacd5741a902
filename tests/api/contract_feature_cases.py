"""The feature-data routes' rules that hang on the chosen table, taught to the generator.

Which columns exist, which values parse for a column's type and which aggregate fits which
column depend on `table` (a body field or a path parameter); JSON Schema cannot tie them to it.
A schema-valid case the server rightly refuses for such a rule is repaired here into one the
rule allows: column names become columns of the table, filter values become values of their
column's type, the file of an import becomes a CSV with the table's header. Only positive cases
are repaired; negative ones keep their violation.
"""

from __future__ import annotations

import zlib
from typing import Any

from pydantic import ValidationError
from schemathesis import GenerationMode

from agentur.errors import InvalidInputError
from agentur.features.instances import FEATURES, Feature, InstanceRef
from agentur.features.query_tables import (
    AggregateArguments,
    Filter,
    aggregate_statement,
    filter_conditions,
)
from agentur.features.schema import ColumnSchema, TableSchema

TABLES: dict[str, TableSchema] = {
    name: schema for feature in FEATURES.values() for name, schema in feature.tables.items()
}
SAMPLE_VALUES = {"text": "x", "money": "1.00", "date": "2026-01-01", "integer": 1}
SUMMABLE = ("SUM", "AVG")
# The statement builders only read the ids of the instance; no database is involved.
PROBE = InstanceRef("probe", "probe", "probe", Feature("probe", TABLES))


def _is_positive(case: Any) -> bool:
    meta = case.meta
    return meta is None or meta.generation.mode == GenerationMode.POSITIVE


def _column(schema: TableSchema, name: Any) -> str:
    """`name` if the table has it, else one of its columns picked by a stable hash of it."""
    if isinstance(name, str) and name in schema.columns:
        return name
    names = list(schema.columns)
    return names[zlib.crc32(str(name).encode("utf-8", "surrogatepass")) % len(names)]


def _ordering(schema: TableSchema, key: Any) -> str:
    descending = isinstance(key, str) and key.startswith("-")
    return ("-" if descending else "") + _column(schema, key[1:] if descending else key)


def _valid_filter(schema: TableSchema, item: dict[str, Any]) -> bool:
    try:
        filter_conditions(schema, [Filter.model_validate(item)])
    except (InvalidInputError, ValidationError):
        return False
    return True


def _filter(schema: TableSchema, item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    item = {**item, "column": _column(schema, item.get("column"))}
    if _valid_filter(schema, item):
        return item
    column: ColumnSchema = schema.columns[item["column"]]
    op = item.get("op", "eq")
    if op in ("contains", "starts_with") and column.type != "text":
        op = "eq"
    sample = SAMPLE_VALUES[column.type]
    return {**item, "op": op, "value": [sample] if op == "in" else sample}


def _query_body(schema: TableSchema, body: dict[str, Any]) -> dict[str, Any]:
    body = dict(body)
    if isinstance(body.get("filters"), list):
        body["filters"] = [_filter(schema, item) for item in body["filters"]]
    for key in ("columns", "group_by"):
        if isinstance(body.get(key), list):
            body[key] = [_column(schema, name) for name in body[key]]
    if isinstance(body.get("order_by"), list):
        body["order_by"] = [_ordering(schema, key) for key in body["order_by"]]
    return body


def _fits(schema: TableSchema, body: dict[str, Any]) -> bool:
    try:
        aggregate_statement(schema, PROBE, AggregateArguments.model_validate(body))
    except (InvalidInputError, ValidationError):
        return False
    return True


def _aggregate_body(schema: TableSchema, body: dict[str, Any]) -> dict[str, Any]:
    """A column of the table for every function but COUNT; SUM and AVG over a movement."""
    body = _query_body(schema, body)
    if body.get("column") is not None or body.get("function") != "COUNT":
        body["column"] = _column(schema, body.get("column"))
    if _fits(schema, body):
        return body
    summable = [name for name in schema.columns if _fits(schema, {**body, "column": name})]
    if summable:
        return {**body, "column": summable[0]}
    return {**body, "function": "MAX"}  # a table without movements: MAX fits every column


def _import_file(schema: TableSchema) -> str:
    """Text, like the generator's own file values: schemathesis re-checks an edited body
    against the schema, and bytes there would turn the case into a negative one."""
    header = ",".join(schema.columns)
    row = ",".join(str(SAMPLE_VALUES[column.type]) for column in schema.columns.values())
    return f"{header}\n{row}\n"


def repair_feature_case(case: Any) -> Any:
    """The case with its table-bound parts made to fit its table (positive cases only)."""
    if not _is_positive(case):
        return case
    path, body = case.operation.path, case.body
    if path.endswith("/import"):
        schema = TABLES.get(str((case.path_parameters or {}).get("table")))
        if schema is not None and isinstance(body, dict) and "file" in body:
            case.body = {**body, "file": _import_file(schema)}
        return case
    schema = TABLES.get(str(body.get("table"))) if isinstance(body, dict) else None
    if schema is None:
        return case
    if path.endswith("/query"):
        case.body = _query_body(schema, body)
    elif path.endswith("/aggregate"):
        case.body = _aggregate_body(schema, body)
    return case

"""The contract run's feature-data repair: a positive case comes out as one the server's own
rules accept, a negative one untouched."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from schemathesis import GenerationMode

from agentur.features.import_rows import read_rows, validate_rows
from agentur.features.query_tables import (
    AggregateArguments,
    QueryArguments,
    aggregate_statement,
    filter_conditions,
)
from tests.api.contract_feature_cases import PROBE, TABLES, repair_feature_case

BASE = "/v1/features/instances/{instance_id}"
FILTERS = [
    {"column": "\udb3b\udfa0", "op": "contains", "value": 1.98e211},
    {"column": "", "op": "lt"},
    {"column": "debit", "op": "in", "value": ["x", None]},
]


def _case(path: str, body: Any, mode: GenerationMode = GenerationMode.POSITIVE, **path_params):
    meta = SimpleNamespace(generation=SimpleNamespace(mode=mode))
    return SimpleNamespace(
        operation=SimpleNamespace(path=f"{BASE}{path}"),
        body=body,
        meta=meta,
        path_parameters={"instance_id": "i", **path_params},
    )


@pytest.mark.parametrize("table", sorted(TABLES))
def test_a_query_gets_columns_and_values_of_its_table(table) -> None:
    body = {"table": table, "columns": ["", "x"], "order_by": ["-0" * 30], "filters": FILTERS}
    repaired = QueryArguments.model_validate(repair_feature_case(_case("/query", body)).body)
    schema = TABLES[table]
    assert set(repaired.columns) <= set(schema.columns)
    assert repaired.order_by[0].startswith("-")
    assert len(filter_conditions(schema, repaired.filters)) == len(FILTERS)


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("function", ["SUM", "AVG", "MIN", "MAX", "COUNT"])
def test_an_aggregate_gets_a_column_its_function_fits(table, function) -> None:
    body = {"table": table, "function": function, "group_by": ["?"], "filters": FILTERS}
    repaired = repair_feature_case(_case("/aggregate", body)).body
    aggregate_statement(TABLES[table], PROBE, AggregateArguments.model_validate(repaired))
    assert repaired["function"] in (function, "MAX")


@pytest.mark.parametrize("table", sorted(TABLES))
def test_an_import_gets_a_csv_with_the_tables_header(table) -> None:
    case = _case("/tables/{table}/import", {"file": "Ê%["}, table=table)
    text = repair_feature_case(case).body["file"]
    assert isinstance(text, str)  # bytes would make schemathesis call the case negative
    rows = validate_rows(TABLES[table], read_rows(text.encode(), "file"), max_rows=10)
    assert len(rows) == 1


def test_a_negative_case_keeps_its_violation() -> None:
    body = {"table": "accounts", "function": "AVG"}
    case = _case("/aggregate", body, GenerationMode.NEGATIVE)
    assert repair_feature_case(case).body is body

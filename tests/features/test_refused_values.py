"""Values the feature-data routes must refuse with a 422 naming the reason — each one was a 500
found by the OpenAPI contract run (tests/api/test_openapi_contract.py)."""

from __future__ import annotations

import pytest

from agentur.context import Role
from agentur.features.schema import MAX_AMOUNT
from tests.features.support import JOURNAL_CSV, trustee_instance


@pytest.fixture
async def books(client, runtime, tenants) -> tuple[str, dict[str, str]]:
    admin = await tenants.member("acme", role=Role.admin)
    return await trustee_instance(runtime, admin.context), admin.headers


@pytest.mark.parametrize("value", [1e30, "1e30", -1e30, [1e30]], ids=["float", "text", "neg", "in"])
async def test_an_amount_beyond_the_money_column_is_refused(client, books, value) -> None:
    # 1e30 has more digits than the decimal context: quantize raised InvalidOperation (a 500).
    instance_id, headers = books
    response = await client.post(
        f"/v1/features/instances/{instance_id}/query",
        json={
            "table": "journal_entries",
            "filters": [
                {"column": "debit", "op": "in" if isinstance(value, list) else "eq", "value": value}
            ],
        },
        headers=headers,
    )
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert "filter on 'debit'" in response.json()["detail"]
    assert str(MAX_AMOUNT) in response.json()["detail"]


async def test_the_largest_amount_still_compares(client, books) -> None:
    instance_id, headers = books
    response = await client.post(
        f"/v1/features/instances/{instance_id}/query",
        json={
            "table": "journal_entries",
            "filters": [{"column": "debit", "op": "lt", "value": str(MAX_AMOUNT)}],
        },
        headers=headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["total"] == JOURNAL_CSV.count("\n") - 1


async def test_an_import_with_an_amount_beyond_the_column_names_row_and_column(
    client, books
) -> None:
    instance_id, headers = books
    csv = "number,name,city,revenue_total\nC7,Gross AG,Chur,1e30\n"
    response = await client.post(
        f"/v1/features/instances/{instance_id}/tables/customers/import",
        files={"file": ("customers.csv", csv.encode())},
        headers=headers,
    )
    assert response.status_code == 422, response.text
    assert "row 2, column 'revenue_total'" in response.json()["detail"]
    rows = await client.post(
        f"/v1/features/instances/{instance_id}/query",
        json={"table": "customers", "filters": [{"column": "number", "value": "C7"}]},
        headers=headers,
    )
    assert rows.json()["total"] == 0


@pytest.mark.parametrize(
    ("column", "op"),
    [("debit", "contains"), ("credit", "starts_with"), ("entry_date", "contains")],
)
async def test_a_text_pattern_on_an_amount_or_a_date_is_refused(client, books, column, op) -> None:
    # Money bound the pattern as an amount (a 500 on both backends); PostgreSQL has no LIKE
    # for dates (a 500 there).
    instance_id, headers = books
    for operation, body in (
        ("query", {"table": "journal_entries"}),
        ("aggregate", {"table": "journal_entries", "function": "COUNT"}),
    ):
        response = await client.post(
            f"/v1/features/instances/{instance_id}/{operation}",
            json={**body, "filters": [{"column": column, "op": op, "value": "20"}]},
            headers=headers,
        )
        assert response.status_code == 422, response.text
        assert f"{op} works on text columns only" in response.json()["detail"]


async def test_a_text_pattern_on_a_text_column_still_matches(client, books) -> None:
    instance_id, headers = books
    response = await client.post(
        f"/v1/features/instances/{instance_id}/query",
        json={
            "table": "journal_entries",
            "filters": [{"column": "description", "op": "contains", "value": "rent"}],
        },
        headers=headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["total"] == 2

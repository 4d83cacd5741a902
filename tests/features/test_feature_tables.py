"""Feature instances' tables: import all-or-nothing, queries scoped to tenant and instance."""

from __future__ import annotations

import io

import pytest
from openpyxl import Workbook

from agentur.context import Role
from agentur.errors import InvalidInputError, NotFoundError
from agentur.features.query_tables import AggregateArguments, Filter, QueryArguments
from tests.features.support import JOURNAL_CSV, trustee_instance


async def test_aggregate_sums_movements_per_account_and_month(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    result = await runtime.feature_data.aggregate(
        member.context,
        instance_id,
        AggregateArguments(
            table="journal_entries",
            function="SUM",
            column="debit",
            group_by=["account_number", "period"],
            filters=[Filter(column="account_number", op="eq", value="1020")],
        ),
    )
    assert result["groups"] == [
        {"account_number": "1020", "period": "2026-01", "value": "1500.00"},
        {"account_number": "1020", "period": "2026-02", "value": "3000.00"},
    ]


async def test_sum_over_a_balance_column_is_refused(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    with pytest.raises(InvalidInputError, match="closing_balance.*balance column"):
        await runtime.feature_data.aggregate(
            member.context,
            instance_id,
            AggregateArguments(table="accounts", function="SUM", column="closing_balance"),
        )


async def test_query_windows_rows_with_total_and_order(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    result = await runtime.feature_data.query(
        member.context,
        instance_id,
        QueryArguments(
            table="invoices",
            columns=["number", "amount"],
            order_by=["-amount"],
            offset=1,
            limit=1,
        ),
    )
    assert result["total"] == 3
    assert result["rows"] == [{"number": "R1", "amount": "1500.00"}]


async def test_other_tenants_instance_is_not_found(runtime, tenants) -> None:
    owner = await tenants.member("acme")
    stranger = await tenants.member("globex")
    instance_id = await trustee_instance(runtime, owner.context)
    with pytest.raises(NotFoundError):
        await runtime.feature_data.query(
            stranger.context, instance_id, QueryArguments(table="accounts")
        )
    # The stranger's own instance does not see the owner's rows either.
    own = await trustee_instance(runtime, stranger.context, filled=False)
    result = await runtime.feature_data.query(
        stranger.context, own, QueryArguments(table="accounts")
    )
    assert result["total"] == 0


async def test_bad_row_names_row_and_column_and_imports_nothing(runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context, filled=False)
    broken = JOURNAL_CSV.replace(
        "2026-02-03,2026-02,1020,Invoice 2 paid,3000.00",
        "2026-02-03,2026-02,1020,Invoice 2 paid,3k",
    )
    with pytest.raises(InvalidInputError, match=r"row 6, column 'debit'.*'3k' is not an amount"):
        await runtime.feature_data.import_file(
            member.context, instance_id, "journal_entries", broken.encode(), "j.csv", max_rows=100
        )
    result = await runtime.feature_data.query(
        member.context, instance_id, QueryArguments(table="journal_entries")
    )
    assert result["total"] == 0


async def test_xlsx_import_via_api_and_cross_tenant_404(client, runtime, tenants) -> None:
    admin = await tenants.member("acme", role=Role.admin)
    created = await client.post(
        "/v1/features/instances",
        json={"feature_code": "trustee", "name": "Books"},
        headers=admin.headers,
    )
    assert created.status_code == 201, created.text
    instance_id = created.json()["id"]
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["number", "name", "city", "revenue_total"])
    sheet.append(["C9", "Xlsx AG", "Zug", 12.5])
    buffer = io.BytesIO()
    workbook.save(buffer)
    files = {"file": ("customers.xlsx", buffer.getvalue())}
    response = await client.post(
        f"/v1/features/instances/{instance_id}/tables/customers/import",
        files=files,
        headers=admin.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["imported_rows"] == 1
    rows = await client.post(
        f"/v1/features/instances/{instance_id}/query",
        json={"table": "customers"},
        headers=admin.headers,
    )
    assert rows.json()["rows"] == [
        {"number": "C9", "name": "Xlsx AG", "city": "Zug", "revenue_total": "12.50"}
    ]
    stranger = await tenants.member("globex")
    refused = await client.post(
        f"/v1/features/instances/{instance_id}/tables/customers/import",
        files=files,
        headers=stranger.headers,
    )
    assert refused.status_code == 404
    bad = await client.post(
        f"/v1/features/instances/{instance_id}/tables/customers/import",
        files={"file": ("c.csv", b"number,name,city,revenue_total\nC1,A,B,abc\n")},
        headers=admin.headers,
    )
    assert bad.status_code == 422
    assert "row 2, column 'revenue_total'" in bad.json()["detail"]


@pytest.mark.parametrize(
    "value",
    ["0" * 501, [1] * 1_001],
    ids=["digit-string-over-500", "in-list-over-limit"],
)
async def test_out_of_range_filter_values_are_refused_with_422(client, tenants, value) -> None:
    # A long digit string once reached a list-length check through int coercion (a 500).
    admin = await tenants.member("acme", role=Role.admin)
    created = await client.post(
        "/v1/features/instances", json={"feature_code": "trustee"}, headers=admin.headers
    )
    instance_id = created.json()["id"]
    for operation, body in (
        ("query", {"table": "customers"}),
        ("aggregate", {"table": "customers", "function": "COUNT"}),
    ):
        response = await client.post(
            f"/v1/features/instances/{instance_id}/{operation}",
            json={**body, "filters": [{"column": "name", "op": "in", "value": value}]},
            headers=admin.headers,
        )
        assert response.status_code == 422, response.text
        assert "filters.0.value" in response.json()["detail"]

"""browse / query / aggregate over a feature instance's tables — built with SQLAlchemy from
validated arguments, never from SQL text, and always filtered by mandate and instance.

Aggregates over `balance`/`total` columns are refused with the reason: those values are already
sums, and adding them up again gives a number that means nothing. The model is pointed to the
movement columns instead.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictFloat, StrictInt
from sqlalchemy import Select, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import InvalidInputError
from agentur.features.instances import FEATURES, InstanceRef
from agentur.features.schema import TableSchema
from agentur.json_numbers import JsonInt

MAX_WINDOW = 500
MAX_GROUPS = 1_000

MAX_FILTERS = 20
MAX_IN_VALUES = 500
MAX_COLUMNS = 50
# JSON types as sent (a digit string stays a string), integers that fit a 64-bit column, finite
# floats: anything else is a 422 naming the field, never an overflow in the database driver.
FilterValue = (
    Annotated[str, Field(max_length=500)]
    | Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]
    | Annotated[StrictFloat, Field(allow_inf_nan=False)]
)
# Every table a feature declares: the schema (and so a model or client) sees the names.
KNOWN_TABLES = tuple(sorted({name for feature in FEATURES.values() for name in feature.tables}))
TableName = Annotated[
    Literal[KNOWN_TABLES],  # type: ignore[valid-type]
    Field(description="A table of the instance's feature."),
]
ColumnNames = Annotated[list[Annotated[str, Field(max_length=65)]], Field(max_length=MAX_COLUMNS)]
Filters = Annotated[list["Filter"], Field(max_length=MAX_FILTERS, description="All must hold.")]

Operator = Literal["eq", "ne", "lt", "le", "gt", "ge", "in", "contains", "starts_with"]


class Filter(BaseModel):
    column: str = Field(max_length=64, description="A column of the table.")
    op: Operator = Field(
        default="eq", description="Comparison; `contains` and `starts_with` on text columns only."
    )
    # The list bound sits on the list type: on the whole union pydantic would apply it to a
    # number that a long digit string coerced to, and fail with a TypeError.
    value: FilterValue | Annotated[list[FilterValue], Field(max_length=MAX_IN_VALUES)] | None = (
        Field(
            default=None,
            description="Value to compare with; a list for `in`; dates as YYYY-MM-DD.",
        )
    )


class BrowseArguments(BaseModel):
    table: TableName
    sample_rows: JsonInt = Field(default=5, ge=0, le=50, description="Sample rows to show.")


class QueryArguments(BaseModel):
    table: TableName
    columns: ColumnNames = Field(
        default_factory=list, description="Columns to return; all if empty."
    )
    filters: Filters = Field(default_factory=list)
    order_by: ColumnNames = Field(
        default_factory=list, description="Columns to sort by; prefix '-' for descending."
    )
    offset: JsonInt = Field(default=0, ge=0, le=10_000_000)
    limit: JsonInt = Field(default=50, ge=1, le=MAX_WINDOW)


class AggregateArguments(BaseModel):
    table: TableName
    function: Literal["SUM", "COUNT", "AVG", "MIN", "MAX"]
    column: str | None = Field(
        default=None, max_length=64, description="Column to aggregate; none for COUNT."
    )
    group_by: ColumnNames = Field(default_factory=list, description="Columns to group by.")
    filters: Filters = Field(default_factory=list)
    order: Literal["group", "value_desc", "value_asc"] = Field(
        default="group", description="Sort groups by their key or by the aggregate value."
    )
    limit: JsonInt = Field(default=100, ge=1, le=MAX_GROUPS, description="Groups at most.")


def _scoped(schema: TableSchema, instance: InstanceRef) -> list[Any]:
    model = schema.model
    return [
        model.mandate_id == instance.mandate_id,  # type: ignore[attr-defined]
        model.instance_id == instance.id,  # type: ignore[attr-defined]
    ]


def filter_conditions(schema: TableSchema, filters: list[Filter]) -> list[Any]:
    conditions = []
    for item in filters:
        try:
            column = schema.column(item.column)
        except KeyError as error:
            raise InvalidInputError(str(error.args[0])) from None
        attribute = schema.attribute(item.column)
        try:
            if item.op == "in":
                values = item.value if isinstance(item.value, list) else [item.value]
                conditions.append(attribute.in_([column.parse(v) for v in values]))
                continue
            if item.op in ("contains", "starts_with"):
                if column.type != "text":
                    # A pattern is no amount or date: the driver could not bind it (money) or
                    # the database has no LIKE for the type (dates on PostgreSQL).
                    raise ValueError(
                        f"{item.op} works on text columns only, not on a {column.type} column; "
                        "compare with eq/lt/le/gt/ge instead"
                    )
                text = str(item.value or "")
                escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                pattern = f"%{escaped}%" if item.op == "contains" else f"{escaped}%"
                conditions.append(attribute.ilike(pattern, escape="\\"))
                continue
            if isinstance(item.value, list):
                raise ValueError(f"a list is only allowed with 'in', not {item.op!r}")
            value = None if item.value is None else column.parse(item.value)
        except ValueError as error:
            raise InvalidInputError(f"filter on {item.column!r}: {error}") from None
        if value is None:
            if item.op not in ("eq", "ne"):
                raise InvalidInputError(f"filter on {item.column!r}: {item.op} needs a value")
            conditions.append(attribute.is_(None) if item.op == "eq" else attribute.is_not(None))
            continue
        conditions.append(getattr(attribute, f"__{item.op}__")(value))
    return conditions


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


async def browse_table(
    session: AsyncSession, instance: InstanceRef, args: BrowseArguments
) -> dict[str, Any]:
    schema = instance.table(args.table)
    rows = await query_table(
        session, instance, QueryArguments(table=args.table, limit=max(args.sample_rows, 1))
    )
    return {
        **schema.describe(),
        "row_count": rows["total"],
        "sample_rows": rows["rows"][: args.sample_rows],
    }


async def query_table(
    session: AsyncSession, instance: InstanceRef, args: QueryArguments
) -> dict[str, Any]:
    schema = instance.table(args.table)
    names = args.columns or list(schema.columns)
    try:
        attributes = [schema.attribute(name) for name in names]
        ordering = [
            schema.attribute(key.lstrip("-")).desc()
            if key.startswith("-")
            else schema.attribute(key).asc()
            for key in args.order_by
        ]
    except KeyError as error:
        raise InvalidInputError(str(error.args[0])) from None
    where = and_(*_scoped(schema, instance), *filter_conditions(schema, args.filters))
    total = (
        await session.execute(select(func.count()).select_from(schema.model).where(where))
    ).scalar_one()
    # The surrogate key last, so a window is stable however many rows share the sort keys.
    query = (
        select(*attributes)
        .where(where)
        .order_by(*ordering, schema.model.row_id)  # type: ignore[attr-defined]
        .offset(args.offset)
        .limit(args.limit)
    )
    rows = [
        {name: _plain(value) for name, value in zip(names, row, strict=True)}
        for row in (await session.execute(query)).all()
    ]
    return {"table": args.table, "rows": rows, "offset": args.offset, "total": total}


def aggregate_statement(
    schema: TableSchema, instance: InstanceRef, args: AggregateArguments
) -> Select[Any]:
    if args.function != "COUNT" and args.column is None:
        raise InvalidInputError(f"{args.function} needs a column")
    try:
        groups = [schema.attribute(name) for name in args.group_by]
        target = schema.attribute(args.column) if args.column else None
        column = schema.column(args.column) if args.column else None
    except KeyError as error:
        raise InvalidInputError(str(error.args[0])) from None
    if column is not None and args.function in ("SUM", "AVG") and column.is_aggregated:
        raise InvalidInputError(
            f"{args.column!r} is a {column.kind} column: its values are already sums, so "
            f"{args.function} over them means nothing. Aggregate the movements instead "
            "(e.g. debit/credit of journal_entries or amount of invoices)."
        )
    numeric = column is not None and column.type in ("money", "integer")
    if column is not None and args.function in ("SUM", "AVG") and not numeric:
        raise InvalidInputError(f"{args.function} needs a numeric column")
    function = {"SUM": func.sum, "AVG": func.avg, "MIN": func.min, "MAX": func.max}
    value = func.count() if target is None else function.get(args.function, func.count)(target)
    value = value.label("value")
    if args.order == "value_desc":
        ordering = [value.desc(), *groups]
    elif args.order == "value_asc":
        ordering = [value.asc(), *groups]
    else:
        ordering = list(groups)
    return (
        select(*groups, value)
        .where(*_scoped(schema, instance), *filter_conditions(schema, args.filters))
        .group_by(*groups)
        .order_by(*ordering)
        .limit(args.limit)
    )


async def aggregate_table(
    session: AsyncSession, instance: InstanceRef, args: AggregateArguments
) -> dict[str, Any]:
    schema = instance.table(args.table)
    statement = aggregate_statement(schema, instance, args)
    column = schema.column(args.column) if args.column else None
    money = column is not None and column.type == "money" and args.function != "COUNT"
    rows = []
    for row in (await session.execute(statement)).all():
        *keys, value = row
        if money and args.function == "AVG" and value is not None:
            # AVG over integer cents comes back as a plain number of cents.
            value = (Decimal(str(value)) / 100).quantize(Decimal("0.01"))
        elif money and args.function == "SUM" and value is None:
            value = Decimal("0.00")
        rows.append(
            {
                **{name: _plain(key) for name, key in zip(args.group_by, keys, strict=True)},
                "value": _plain(value),
            }
        )
    return {
        "table": args.table,
        "function": args.function,
        "column": args.column,
        "filters": [item.model_dump(exclude_none=True) for item in args.filters],
        "groups": rows,
    }

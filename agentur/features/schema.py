"""The declared schema of a feature's tables, read from the typed models: column types,
descriptions and which columns are already aggregated (balances, totals).

The schema is what the sub-agent's prompt is built from and what every query argument is
validated against, so a column the schema does not declare can never reach SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_DOWN, Decimal
from typing import Any

from sqlalchemy import Date, Integer, String
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute

from agentur.storage.models.trustee import Money

INTERNAL_COLUMNS = frozenset({"row_id", "mandate_id", "instance_id"})
AGGREGATED_KINDS = frozenset({"balance", "total"})
CENT = Decimal("0.01")
# Money is stored as integer cents in a 64-bit column.
MAX_AMOUNT = (Decimal(2**63 - 1) * CENT).quantize(CENT, rounding=ROUND_DOWN)


def _amount(value: Any) -> Decimal:
    """An amount with at most two decimals whose cents fit the 64-bit column."""
    try:
        amount = Decimal(str(value).strip().replace("'", ""))
    except ArithmeticError:
        raise ValueError(f"{value!r} is not an amount") from None
    # Bounded before quantize: a huge amount (1e30) has more digits than the decimal context
    # holds, and quantize would raise InvalidOperation instead of a readable error.
    if not amount.is_finite() or abs(amount) > MAX_AMOUNT:
        raise ValueError(f"{value!r} is not an amount between -{MAX_AMOUNT} and {MAX_AMOUNT}")
    if amount != amount.quantize(CENT):
        raise ValueError(f"{value!r} is not an amount with at most two decimals")
    return amount


@dataclass(frozen=True, slots=True)
class ColumnSchema:
    name: str
    type: str  # text | integer | money | date
    description: str
    kind: str | None = None  # balance | total | movement | None
    nullable: bool = False

    @property
    def is_aggregated(self) -> bool:
        return self.kind in AGGREGATED_KINDS

    def parse(self, value: Any) -> Any:
        """A value from a model, a CSV cell or a spreadsheet as this column's Python type;
        ValueError with a readable reason otherwise."""
        if value is None or (isinstance(value, str) and not value.strip()):
            if self.nullable:
                return None
            raise ValueError("a value is required")
        if self.type == "money":
            return _amount(value)
        if self.type == "date":
            if isinstance(value, date):
                return value if type(value) is date else value.date()  # type: ignore[attr-defined]
            try:
                return date.fromisoformat(str(value).strip())
            except ValueError:
                raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)") from None
        if self.type == "integer":
            try:
                return int(str(value).strip())
            except ValueError:
                raise ValueError(f"{value!r} is not a whole number") from None
        return str(value).strip()


@dataclass(frozen=True, slots=True)
class TableSchema:
    name: str
    description: str
    model: type[DeclarativeBase]
    columns: dict[str, ColumnSchema]

    def column(self, name: str) -> ColumnSchema:
        found = self.columns.get(name)
        if found is None:
            raise KeyError(
                f"table {self.name!r} has no column {name!r}; columns: {', '.join(self.columns)}"
            )
        return found

    def attribute(self, name: str) -> InstrumentedAttribute[Any]:
        self.column(name)
        return getattr(self.model, name)

    def describe(self) -> dict[str, Any]:
        return {
            "table": self.name,
            "description": self.description,
            "columns": [
                {
                    "name": column.name,
                    "type": column.type,
                    "description": column.description,
                    **({"kind": column.kind} if column.kind else {}),
                }
                for column in self.columns.values()
            ],
        }


def _type_name(column: Any) -> str:
    if isinstance(column.type, Money):
        return "money"
    if isinstance(column.type, Date):
        return "date"
    if isinstance(column.type, Integer):
        return "integer"
    if isinstance(column.type, String):
        return "text"
    raise TypeError(f"column {column.name} has a type the feature schema does not know")


def table_schema(name: str, description: str, model: type[DeclarativeBase]) -> TableSchema:
    columns = {
        column.name: ColumnSchema(
            name=column.name,
            type=_type_name(column),
            description=column.info.get("description", ""),
            kind=column.info.get("kind"),
            nullable=bool(column.nullable),
        )
        for column in model.__table__.columns  # type: ignore[attr-defined]
        if column.name not in INTERNAL_COLUMNS
    }
    return TableSchema(name, description, model, columns)

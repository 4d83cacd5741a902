"""Import of a table's rows from CSV or XLSX: all rows or none.

Every cell is parsed against the declared schema first; errors name the row (as the user sees
it in the file: the header is row 1) and the column, and nothing is written unless every row is
valid. The rows are then inserted in the caller's one transaction.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import InvalidInputError
from agentur.features.instances import InstanceRef
from agentur.features.schema import TableSchema

MAX_REPORTED_ERRORS = 20


def read_rows(data: bytes, file_name: str) -> Iterator[list[Any]]:
    """Rows of a CSV (UTF-8, `,` or `;`) or XLSX file, header included."""
    if file_name.lower().endswith(".xlsx"):
        from openpyxl import load_workbook  # only an XLSX import pays for openpyxl

        try:
            workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except Exception as error:
            raise InvalidInputError(f"{file_name} is not a readable XLSX file: {error}") from None
        for row in workbook.worksheets[0].iter_rows(values_only=True):
            yield list(row)
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{file_name} is not UTF-8 text") from None
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
    yield from csv.reader(io.StringIO(text), delimiter=delimiter)


def validate_rows(schema: TableSchema, rows: Iterable[list[Any]], max_rows: int) -> list[dict]:
    iterator = iter(rows)
    header = [str(cell or "").strip() for cell in next(iterator, [])]
    missing = [name for name, c in schema.columns.items() if name not in header and not c.nullable]
    unknown = [name for name in header if name and name not in schema.columns]
    if missing or unknown:
        raise InvalidInputError(
            f"row 1 (header) of table {schema.name!r}: "
            + "; ".join(
                part
                for part in (
                    f"missing columns {', '.join(missing)}" if missing else "",
                    f"unknown columns {', '.join(unknown)}" if unknown else "",
                )
                if part
            )
            + f"; expected: {', '.join(schema.columns)}"
        )
    values: list[dict] = []
    errors: list[str] = []
    for number, row in enumerate(iterator, start=2):
        if not any(cell not in (None, "") for cell in row):
            continue  # blank lines, e.g. at the end of a spreadsheet
        if len(values) >= max_rows:
            raise InvalidInputError(f"more than {max_rows} rows; split the file")
        parsed: dict[str, Any] = {}
        for position, name in enumerate(header):
            if not name:
                continue
            cell = row[position] if position < len(row) else None
            try:
                parsed[name] = schema.columns[name].parse(cell)
            except ValueError as error:
                errors.append(f"row {number}, column {name!r}: {error}")
        values.append(parsed)
        if len(errors) >= MAX_REPORTED_ERRORS:
            break
    if errors:
        raise InvalidInputError("nothing was imported; " + "; ".join(errors))
    return values


async def import_rows(
    session: AsyncSession,
    instance: InstanceRef,
    table: str,
    data: bytes,
    file_name: str,
    *,
    max_rows: int,
) -> int:
    schema = instance.table(table)
    values = validate_rows(schema, read_rows(data, file_name), max_rows)
    if values:
        owner = {"mandate_id": instance.mandate_id, "instance_id": instance.id}
        await session.execute(insert(schema.model), [{**row, **owner} for row in values])
    return len(values)

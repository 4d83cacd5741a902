"""`create_chart` (T5): a simple `{type, data, x, y}` spec — or the same as a Vega-Lite subset
(`mark`, `data.values`, `encoding.x/y.field`, `title`) — to a PNG and an SVG workspace file."""

from __future__ import annotations

import asyncio
import csv
import io
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from agentur.errors import InvalidInputError
from agentur.rendering.chart import ChartSpec, render_chart
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service
from agentur.tools.workspace_files import describe

MAX_ROWS = 10_000
MAX_SERIES = 12
Row = dict[str, Any]


class CreateChartArguments(BaseModel):
    type: Literal["bar", "line", "scatter", "pie", "area"] | None = None
    data: list[Row] = Field(default_factory=list, max_length=MAX_ROWS, description="Rows.")
    csv_file_id: str | None = Field(default=None, description="Rows from a workspace CSV.")
    x: str | None = Field(default=None, description="Field of the x axis (categories).")
    y: list[str] = Field(default_factory=list, description="Field(s) plotted as series.")
    vega_lite: dict[str, Any] | None = Field(
        default=None, description="Instead of type/data/x/y: mark, data.values, encoding."
    )
    title: str = Field(default="", max_length=200)
    x_label: str = Field(default="", max_length=100)
    y_label: str = Field(default="", max_length=100)
    width: int = Field(default=800, ge=100, le=4000, description="Pixels.")
    height: int = Field(default=500, ge=100, le=4000, description="Pixels.")
    name: str = Field(default="chart", min_length=1, description="Base name of both files.")
    folder_id: str | None = None

    @field_validator("y", mode="before")
    @classmethod
    def _one_field(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _from_vega_lite(self) -> CreateChartArguments:
        if self.vega_lite is not None:
            spec = self.vega_lite
            mark = spec.get("mark")
            self.type = mark.get("type") if isinstance(mark, dict) else mark  # type: ignore[assignment]
            self.data = list((spec.get("data") or {}).get("values") or [])
            encoding = spec.get("encoding") or {}
            self.x = (encoding.get("x") or encoding.get("theta") or {}).get("field")
            field = (encoding.get("y") or {}).get("field")
            self.y = [field] if field else []
            title = spec.get("title") or self.title
            self.title = title.get("text", "") if isinstance(title, dict) else str(title)
        if self.type not in ("bar", "line", "scatter", "pie", "area"):
            raise ValueError("type (or vega_lite.mark) must be bar, line, scatter, pie or area")
        if not self.x or not self.y:
            raise ValueError("x and y (or vega_lite.encoding.x/y.field) are required")
        return self


def _number(value: Any, field: str, row: int) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"row {row}: {field}={value!r} is not a number") from None


def chart_spec(args: CreateChartArguments, rows: list[Row]) -> ChartSpec:
    if not rows:
        raise InvalidInputError("the chart has no data rows")
    fields = args.y
    if len(fields) > MAX_SERIES:
        raise InvalidInputError(f"at most {MAX_SERIES} series, got {len(fields)}")
    for field in [args.x, *fields]:
        if field not in rows[0]:
            raise InvalidInputError(f"no field {field!r}; the rows have {', '.join(rows[0])}")
    series = {
        field: [_number(row.get(field), field, i) for i, row in enumerate(rows, 1)]
        for field in fields
    }
    return ChartSpec(
        type=str(args.type),
        x=[row.get(str(args.x)) for row in rows],  # type: ignore[misc]
        series=series,
        title=args.title,
        x_label=args.x_label or str(args.x),
        y_label=args.y_label or (fields[0] if len(fields) == 1 else ""),
        width=args.width,
        height=args.height,
    )


async def create_chart(args: CreateChartArguments, context: ToolContext) -> dict[str, Any]:
    rows = args.data
    if args.csv_file_id:
        async with file_service(context) as files:
            _, text = await files.read_text(args.csv_file_id)
        rows = list(csv.DictReader(io.StringIO(text)))[:MAX_ROWS]
    png, svg = await asyncio.to_thread(render_chart, chart_spec(args, rows))  # CPU work
    async with file_service(context) as files:
        stored = [
            await files.write_bytes(f"{args.name}.{ext}", data, folder_id=args.folder_id)
            for ext, data in (("png", png), ("svg", svg))
        ]
        await files.commit()
        return {"files": [describe(file) for file in stored], "rows": len(rows)}


TOOLS: list[Tool] = [
    Tool(
        "create_chart",
        "Draw a bar/line/scatter/pie/area chart from rows (or a CSV file, or a Vega-Lite "
        "subset) into a PNG and an SVG workspace file.",
        CreateChartArguments,
        create_chart,
        toolbox="ai",
    )
]

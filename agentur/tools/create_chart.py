"""`create_chart`: rows, a workspace CSV or a Vega-Lite spec to a PNG and an SVG workspace
file. A simple `{type, data, x, y}` chart is drawn with matplotlib; a Vega-Lite spec is drawn by
Vega-Lite itself (agentur/rendering/vega_lite.py) — every feature as written, or a refusal that
names what would not be drawn. Both draw in the rendering worker process, off the event loop."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from agentur.errors import InvalidInputError
from agentur.rendering.chart import ChartSpec, render_chart
from agentur.rendering.render_process import render_off_loop
from agentur.rendering.vega_lite import render_vega_lite
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service
from agentur.tools.workspace_files import describe

MAX_ROWS = 10_000
MAX_SERIES = 12
MAX_SPEC_CHARS = 2_000_000
# Views that can be fitted into width × height as a whole (not facets or concatenations).
FITTING_VIEWS = ("mark", "layer")
Row = dict[str, Any]


class CreateChartArguments(BaseModel):
    type: Literal["bar", "line", "scatter", "pie", "area"] | None = None
    data: list[Row] = Field(default_factory=list, max_length=MAX_ROWS, description="Rows.")
    csv_file_id: str | None = Field(
        default=None, description="Rows from a workspace CSV (also the data of a vega_lite spec)."
    )
    x: str | None = Field(default=None, description="Field of the x axis (categories).")
    y: list[str] = Field(default_factory=list, description="Field(s) plotted as series.")
    vega_lite: dict[str, Any] | None = Field(
        default=None,
        description="Instead of type/data/x/y: a Vega-Lite v6 spec with inline data "
        "(data.values, or the rows of csv_file_id), drawn by Vega-Lite; a spec it would not "
        "draw as written is refused with the reasons.",
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
    def _one_kind_of_chart(self) -> CreateChartArguments:
        if self.vega_lite is not None:
            if self.type or self.data or self.x or self.y:
                raise ValueError("give either vega_lite or type/data/x/y, not both")
            return self
        if self.type is None:
            raise ValueError("type (bar, line, scatter, pie or area) or vega_lite is required")
        if not self.x or not self.y:
            raise ValueError("x and y are required")
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


def vega_lite_spec(args: CreateChartArguments, rows: list[Row] | None) -> dict[str, Any]:
    """The spec as drawn: the CSV's rows as its data, the tool's title and size where the spec
    has none (a single or layered view is fitted into width × height)."""
    spec = dict(args.vega_lite or {})
    if rows is not None:
        if "data" in spec:
            raise InvalidInputError("the vega_lite spec has data of its own; drop csv_file_id")
        spec["data"] = {"values": rows}
    if args.title and "title" not in spec:
        spec["title"] = args.title
    if any(key in spec for key in FITTING_VIEWS) and not {"width", "height", "autosize"} & set(
        spec
    ):
        encoding = spec.get("encoding")
        if not (isinstance(encoding, dict) and {"row", "column", "facet"} & set(encoding)):
            spec.update(
                width=args.width,
                height=args.height,
                autosize={"type": "fit", "contains": "padding"},
            )
    if len(json.dumps(spec, default=str)) > MAX_SPEC_CHARS:
        raise InvalidInputError(f"the vega_lite spec is larger than {MAX_SPEC_CHARS} characters")
    return spec


async def _csv_rows(context: ToolContext, file_id: str) -> list[Row]:
    async with file_service(context) as files:
        _, text = await files.read_text(file_id)
    return list(csv.DictReader(io.StringIO(text)))[:MAX_ROWS]


async def create_chart(args: CreateChartArguments, context: ToolContext) -> dict[str, Any]:
    rows = await _csv_rows(context, args.csv_file_id) if args.csv_file_id else None
    seconds = context.runtime.all_settings.charts.chart_render_seconds
    if args.vega_lite is not None:
        spec = vega_lite_spec(args, rows)
        png, svg = await render_off_loop(render_vega_lite, spec, seconds=seconds)
        data = spec.get("data")
        values = data.get("values") if isinstance(data, dict) else None
        count = len(values) if isinstance(values, list) else None
    else:
        rows = args.data if rows is None else rows
        png, svg = await render_off_loop(render_chart, chart_spec(args, rows), seconds=seconds)
        count = len(rows)
    async with file_service(context) as files:
        stored = [
            await files.write_bytes(f"{args.name}.{ext}", data, folder_id=args.folder_id)
            for ext, data in (("png", png), ("svg", svg))
        ]
        await files.commit()
        return {"files": [describe(file) for file in stored], "rows": count}


TOOLS: list[Tool] = [
    Tool(
        "create_chart",
        "Draw a bar/line/scatter/pie/area chart from rows (or a CSV file), or any Vega-Lite "
        "spec (stacks, colours, aggregates, layers …), into a PNG and an SVG workspace file.",
        CreateChartArguments,
        create_chart,
        toolbox="ai",
    )
]

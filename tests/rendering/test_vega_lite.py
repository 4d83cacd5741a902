"""Vega-Lite is drawn by Vega-Lite (vl-convert), never silently wrong: `aggregate` + `color` give
stacked, coloured bars (checked in the SVG's geometry and the PNG's pixels), and a spec that
would not be drawn as written is refused with its reasons — by the renderer and by the
`create_chart` tool, which then stores nothing."""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections import defaultdict

import numpy as np
import pytest
from PIL import Image

from agentur.ai.messages import ToolCall
from agentur.errors import InvalidInputError
from agentur.rendering.render_process import render_off_loop
from agentur.rendering.vega_lite import ChartRefused, render_vega_lite
from agentur.runtime import Runtime
from agentur.tools.create_chart import TOOLS as CHART_TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.workspace.files import FileService

BLUE, ORANGE = "#4c78a8", "#f58518"  # Vega's first two category colours
ROWS = [  # Jan/A twice: the aggregate must add them up
    {"month": "Jan", "product": "A", "sales": 1},
    {"month": "Jan", "product": "A", "sales": 2},
    {"month": "Jan", "product": "B", "sales": 4},
    {"month": "Feb", "product": "A", "sales": 5},
    {"month": "Feb", "product": "B", "sales": 2},
]
STACKED = {
    "data": {"values": ROWS},
    "mark": "bar",
    "encoding": {
        "x": {"field": "month", "type": "nominal"},
        "y": {"aggregate": "sum", "field": "sales", "type": "quantitative"},
        "color": {"field": "product", "type": "nominal"},
    },
}
BAR = re.compile(
    r'<path aria-label="([^"]*)"[^>]*aria-roledescription="bar" '
    r'd="M([\d.]+),([\d.]+)h([\d.]+)v([\d.]+)h-[\d.]+Z" fill="(#[0-9a-f]{6})"'
)


def bars(svg: str) -> dict[str, list[tuple[float, float, str]]]:
    """Bars by their x position: (top, height, fill) each."""
    found: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for _, x, y, _, height, fill in BAR.findall(svg):
        found[x].append((float(y), float(height), fill))
    return {x: sorted(column) for x, column in found.items()}


def assert_stacked(svg: str) -> None:
    columns = bars(svg)
    assert len(columns) == 2, columns  # Jan and Feb, one column each (not four bars)
    heights = {}
    for column in columns.values():
        (top_a, height_a, fill_a), (top_b, height_b, fill_b) = column
        assert {fill_a, fill_b} == {BLUE, ORANGE}  # coloured by product
        assert top_a + height_a == pytest.approx(top_b)  # one on top of the other
        heights[tuple(sorted(((fill_a, height_a), (fill_b, height_b))))] = height_a + height_b
    # Jan: A 1+2=3, B 4; Feb: A 5, B 2 — both stacks are 7 high, segments in proportion.
    assert len(set(map(round, heights.values()))) == 1
    for segments in heights:
        (blue, blue_height), (orange, orange_height) = segments
        assert (blue, orange) == (BLUE, ORANGE)
        assert blue_height / orange_height == pytest.approx(3 / 4) or (
            blue_height / orange_height == pytest.approx(5 / 2)
        )


def colour_share(png: bytes, colour: str) -> float:
    """The share of the PNG's pixels in `colour` (within a little anti-aliasing)."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    wanted = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return float((np.abs(pixels - wanted).max(axis=2) <= 8).mean())


def test_aggregate_and_color_draw_stacked_coloured_bars() -> None:
    png, svg = render_vega_lite(STACKED)
    assert_stacked(svg.decode())
    assert colour_share(png, BLUE) > 0.02 and colour_share(png, ORANGE) > 0.02


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"mark": "barz"}, "mark: 'barz' is not one of ['arc'"),
        (
            {"encoding": {**STACKED["encoding"], "colour": {"field": "product"}}},
            "encoding: Additional properties are not allowed ('colour' was unexpected)",
        ),
        (
            {"encoding": {**STACKED["encoding"], "y": {"field": "sales", "stak": "normalize"}}},
            "encoding.y: Additional properties are not allowed ('stak' was unexpected)",
        ),
        ({"data": {"url": "http://127.0.0.1:9/sales.csv"}}, "data.url: nothing is loaded from URL"),
        (
            {"encoding": {**STACKED["encoding"], "color": {"type": "nominal"}}},
            'Dropping {"type":"nominal"} from channel "color" since it does not contain any data',
        ),
        ({"data": {"sequence": {"start": 0, "stop": 10**9}}}, "generates more than 10000 rows"),
    ],
    ids=["mark", "channel", "property", "url", "dropped-channel", "sequence"],
)
def test_what_would_not_be_drawn_is_refused_with_the_reason(change: dict, reason: str) -> None:
    with pytest.raises(ChartRefused) as refused:
        render_vega_lite({**STACKED, **change})
    assert reason in refused.value.detail


async def test_create_chart_draws_a_spec_over_a_csv_and_refuses_a_bad_one(
    runtime: Runtime, tenants
) -> None:
    alice = await tenants.member()
    csv = "month,product,sales\n" + "".join(
        f"{r['month']},{r['product']},{r['sales']}\n" for r in ROWS
    )
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        source = await files.write_text("sales.csv", csv)
        await files.commit()
    context = ToolContext(request=alice.context, runtime=runtime)
    tool = CHART_TOOLS[0]
    spec = {key: value for key, value in STACKED.items() if key != "data"}

    drawn = await run_tool(
        tool,
        ToolCall("c1", tool.name, {"vega_lite": spec, "csv_file_id": source.id, "name": "sales"}),
        context,
        ToolLimits(),
        lambda _: None,
    )
    assert not drawn.is_error, drawn.content
    stored = {f["name"]: f for f in json.loads(drawn.content)["files"]}
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        _, svg = await files.read_text(stored["sales.svg"]["file_id"])
        _, png = await files.read_bytes(stored["sales.png"]["file_id"])
    assert_stacked(svg)  # CSV values are strings: Vega-Lite's quantitative type parses them
    assert Image.open(io.BytesIO(png)).size == (800, 500)  # fitted into the tool's size

    refused = await run_tool(
        tool,
        ToolCall("c2", tool.name, {"vega_lite": {**STACKED, "mark": "barz"}, "name": "bad"}),
        context,
        ToolLimits(),
        lambda _: None,
    )
    assert refused.is_error and "mark: 'barz' is not one of" in refused.content
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        names = [f.name for f in (await files.list()).files]
    assert sorted(names) == ["sales.csv", "sales.png", "sales.svg"]


async def test_a_drawing_that_overruns_is_stopped_and_the_worker_replaced() -> None:
    first = await render_off_loop(os.getpid, seconds=60)
    started = time.monotonic()
    with pytest.raises(InvalidInputError, match="longer than 0.5 s to draw"):
        await render_off_loop(time.sleep, 30, seconds=0.5)
    assert time.monotonic() - started < 10
    assert await render_off_loop(os.getpid, seconds=60) not in (first, os.getpid())

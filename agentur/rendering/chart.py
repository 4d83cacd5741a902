"""Charts to PNG and SVG with matplotlib's object API on the Agg canvas (no pyplot: no global
figure state, so charts may render in worker threads). SVG keeps text as text, so labels stay
searchable and selectable."""

from __future__ import annotations

import io
from dataclasses import dataclass

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

DPI = 100
CHART_TYPES = ("bar", "line", "scatter", "pie", "area")


@dataclass(frozen=True, slots=True)
class ChartSpec:
    type: str
    x: list[str | float]
    series: dict[str, list[float]]  # label → y values, one per x
    title: str = ""
    x_label: str = ""
    y_label: str = ""
    width: int = 800  # pixels of the PNG; the SVG has the same size at 100 dpi
    height: int = 500


def _draw(spec: ChartSpec) -> Figure:
    figure = Figure(figsize=(spec.width / DPI, spec.height / DPI), dpi=DPI, layout="tight")
    axes = figure.add_subplot()
    labels = [str(value) for value in spec.x]
    count = len(spec.series)
    for number, (label, values) in enumerate(spec.series.items()):
        if spec.type == "bar":
            width = 0.8 / count
            positions = [i + (number - (count - 1) / 2) * width for i in range(len(labels))]
            axes.bar(positions, values, width=width, label=label)
            axes.set_xticks(range(len(labels)), labels)
        elif spec.type == "line":
            axes.plot(labels, values, marker="o", label=label)
        elif spec.type == "area":
            axes.fill_between(labels, values, alpha=0.5, label=label)
        elif spec.type == "scatter":
            axes.scatter(spec.x, values, label=label)
        elif spec.type == "pie":
            axes.pie(values, labels=labels, autopct="%1.0f%%")
            axes.set_xlabel(label)
    if spec.type != "pie":
        axes.legend()
        axes.set_xlabel(spec.x_label)
        axes.set_ylabel(spec.y_label)
    if spec.title:
        axes.set_title(spec.title)
    return figure


def render_chart(spec: ChartSpec) -> tuple[bytes, bytes]:
    """PNG and SVG bytes of one chart."""
    with rc_context({"svg.fonttype": "none", "font.family": "DejaVu Sans"}):
        figure = _draw(spec)
        png, svg = io.BytesIO(), io.BytesIO()
        FigureCanvasAgg(figure).print_png(png)
        FigureCanvasSVG(figure).print_svg(svg)
    return png.getvalue(), svg.getvalue()

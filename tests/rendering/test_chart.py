"""Charts: the PNG has the requested pixel size, the SVG the same size at 72 pt per inch and
its series labels and categories as text."""

from __future__ import annotations

import re
import struct

import pytest

from agentur.rendering.chart import ChartSpec, render_chart


def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize("kind", ["bar", "line", "area", "scatter"])
def test_png_and_svg_sizes_and_series_labels(kind: str) -> None:
    x = [1, 2, 3] if kind == "scatter" else ["Jänner", "Februar", "März"]
    spec = ChartSpec(
        kind, x, {"Umsatz Süd": [3, 5, 4], "Umsatz Nord": [1, 2, 6]}, title="Verkäufe", width=640
    )
    png, svg = render_chart(spec)
    assert _png_size(png) == (640, 500)
    text = svg.decode()
    match = re.search(r'<svg [^>]*width="([\d.]+)pt" height="([\d.]+)pt"', text)
    assert match and (match[1], match[2]) == ("460.8", "360")
    for label in ("Umsatz Süd", "Umsatz Nord", "Verkäufe"):
        assert label in text
    if kind != "scatter":
        assert "März" in text


def test_pie_labels_the_slices() -> None:
    png, svg = render_chart(ChartSpec("pie", ["Nord", "Süd"], {"Anteil": [70, 30]}, height=300))
    assert _png_size(png) == (800, 300)
    assert "Nord" in svg.decode() and "70%" in svg.decode()

"""Rendering settings (env `AGENTUR_CHART_*`)."""

from __future__ import annotations

from agentur.config import PartSettings, seconds


class ChartSettings(PartSettings):
    chart_render_seconds: float = seconds(
        60.0,
        "Longest a chart may take to draw in the rendering worker process; a "
        "chart that takes longer is stopped (the worker is restarted) and refused.",
        most=600,
    )

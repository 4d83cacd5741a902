"""Rendering settings (env `AGENTUR_CHART_*`)."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings


class ChartSettings(PartSettings):
    chart_render_seconds: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="Longest a chart may take to draw in the rendering worker process; a "
        "chart that takes longer is stopped (the worker is restarted) and refused.",
    )

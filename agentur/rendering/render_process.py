"""Charts are drawn in a worker process of their own: matplotlib and Vega-Lite (vl-convert) hold
the GIL for the whole drawing, so in a thread of the server they would stall its event loop
(measured: ticks of 5 ms waited 135 ms while vl-convert drew in a thread). Its own process, not
the indexing one, so a chart never waits behind an indexing batch; it starts at the first chart
and keeps its engines warm. A drawing that overruns `AGENTUR_CHART_RENDER_SECONDS` is stopped by
killing the worker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from agentur.cpu_pool import WorkerProcess
from agentur.errors import InvalidInputError

T = TypeVar("T")

_renderer = WorkerProcess()


async def render_off_loop(function: Callable[..., T], *args: object, seconds: float) -> T:
    """`function(*args)` in the rendering worker process, stopped after `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            return await _renderer.run(0, function, *args)
    except TimeoutError:
        _renderer.kill()
        raise InvalidInputError(
            f"the chart took longer than {seconds:g} s to draw (AGENTUR_CHART_RENDER_SECONDS) "
            "and was stopped"
        ) from None

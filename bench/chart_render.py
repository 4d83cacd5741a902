"""Vega-Lite chart drawing and the event loop. Prints figures, asserts nothing.

    python bench/chart_render.py [--samples 30]

Draws a stacked bar chart (aggregate + color, 2,000 rows) with `render_vega_lite` — PNG and
SVG — after two warm-up drawings, `--samples` times each way:
- in a thread of this process (as `asyncio.to_thread` would), and
- in the rendering worker process (`render_off_loop`, what `create_chart` does),
while a ticker on the event loop sleeps 5 ms at a time. Prints the drawing time (p50 / p95)
and how late the ticker woke (p50 / p99 / max): vl-convert holds the GIL while it draws, so in
a thread it stalls the loop; in the worker process it does not. Also the load average, since
the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentur.rendering.render_process import render_off_loop  # noqa: E402
from agentur.rendering.vega_lite import render_vega_lite  # noqa: E402

TICK = 0.005
SPEC = {
    "data": {
        "values": [
            {"month": f"M{i % 12:02d}", "product": f"P{i % 4}", "sales": i % 97}
            for i in range(2_000)
        ]
    },
    "mark": "bar",
    "encoding": {
        "x": {"field": "month", "type": "nominal"},
        "y": {"aggregate": "sum", "field": "sales", "type": "quantitative"},
        "color": {"field": "product", "type": "nominal"},
    },
}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(draw: Callable[[], Awaitable[object]], samples: int) -> tuple[list, list]:
    lateness: list[float] = []

    async def ticker() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK)
            lateness.append(time.perf_counter() - started - TICK)

    for _ in range(2):
        await draw()  # warm-up: the engine's first drawing compiles Vega-Lite
    task = asyncio.create_task(ticker())
    durations = []
    for _ in range(samples):
        started = time.perf_counter()
        await draw()
        durations.append(time.perf_counter() - started)
    task.cancel()
    return durations, lateness


def report(label: str, durations: list[float], lateness: list[float]) -> None:
    print(
        f"{label}: drawing p50 {statistics.median(durations) * 1000:.0f} ms, "
        f"p95 {percentile(durations, 0.95) * 1000:.0f} ms; event loop late by "
        f"p50 {statistics.median(lateness) * 1000:.1f} ms, "
        f"p99 {percentile(lateness, 0.99) * 1000:.1f} ms, max {max(lateness) * 1000:.1f} ms "
        f"({len(lateness)} ticks)"
    )


async def main(samples: int) -> None:
    print(f"load average before: {os.getloadavg()}")
    threaded = await measure(lambda: asyncio.to_thread(render_vega_lite, SPEC), samples)
    report("thread", *threaded)
    worker = await measure(lambda: render_off_loop(render_vega_lite, SPEC, seconds=60), samples)
    report("worker process", *worker)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30)
    asyncio.run(main(parser.parse_args().samples))

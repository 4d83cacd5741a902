"""What rendering Markdown answers costs in the browser (agentur/web/markdown/), in headless
Chromium: one render (parse with markdown-it, build the DOM, DOMPurify's in-place check) of
answers of several sizes, and a whole 4 kB answer streamed in 20-character chunks with one
render per chunk (the page renders at most once per frame, so this is the worst case), plus
the gzip size of what the browser downloads once.

Run: `python bench/markdown_render.py` (needs Debian's chromium and Playwright, the `test`
extra). Prints figures; no asserts. Record `cat /proc/loadavg` with them.
"""

from __future__ import annotations

import asyncio
import gzip
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.web.browser import launch_chromium

WEB = Path(__file__).resolve().parents[1] / "agentur" / "web"
SAMPLES = 200
WARM_UP = 30
TIMING = """async ([sizes, samples, warmUp]) => {
  const { renderMarkdown } = await import("/markdown/render_markdown.js");
  const { MarkdownView } = await import("/markdown/markdown_view.js");
  const unit = "Die **Heckenpflege** kostet *CHF 480*, siehe [Offerte](https://example.ch/o)"
    + " und `Code`.\\n\\n| Leistung | Preis |\\n| --- | ---: |\\n| Hecke | 480 |\\n"
    + "| Rasen | 60 |\\n\\n- eins\\n- zwei mit **fett**\\n\\n";
  const text = (size) => {
    let s = "";
    while (s.length < size) s += unit;
    return s.slice(0, size);
  };
  const percentile = (values, p) =>
    values.sort((a, b) => a - b)[Math.floor(p * (values.length - 1))];
  const result = {};
  for (const size of sizes) {
    const source = text(size);
    for (let i = 0; i < warmUp; i++) renderMarkdown(source);
    const times = [];
    for (let i = 0; i < samples; i++) {
      const start = performance.now();
      renderMarkdown(source);
      times.push(performance.now() - start);
    }
    result[`render ${size} chars`] = [percentile(times, 0.5), percentile(times, 0.99)];
  }
  const answer = text(4000);
  const streams = [];
  for (let run = 0; run < 10; run++) {
    const view = new MarkdownView(document.createElement("div"));
    const start = performance.now();
    for (let end = 20; end <= answer.length; end += 20) view.show(answer.slice(0, end));
    streams.push(performance.now() - start);
  }
  result["stream 4000 chars, 200 renders (total)"] =
    [percentile(streams, 0.5), Math.max(...streams)];
  return result;
}"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def sizes() -> None:
    for path in sorted((WEB / "markdown").rglob("*.*js")):
        raw = path.read_bytes()
        packed = len(gzip.compress(raw, 9)) / 1024
        print(f"{path.relative_to(WEB)}: {len(raw) / 1024:.1f} kB, gzip {packed:.1f} kB")


async def timings() -> None:
    server, url = serve(WEB)
    try:
        async with launch_chromium() as browser:
            page = await browser.new_page()
            await page.goto(url + "/")
            figures = await page.evaluate(TIMING, [[1000, 4000, 16000], SAMPLES, WARM_UP])
    finally:
        server.shutdown()
    for name, (median, high) in figures.items():
        label = "p50 / max" if name.startswith("stream") else "p50 / p99"
        print(f"{name}: {label} {median:.2f} / {high:.2f} ms")


if __name__ == "__main__":
    sizes()
    asyncio.run(timings())
    print("load average:", Path("/proc/loadavg").read_text().strip())

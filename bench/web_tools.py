"""Web and language tools: what read_url costs per page type, whether extraction keeps off the
event loop, and what detect_language costs (model load, per call, memory).

read_url runs its real path (egress fetch from a loopback server, allow-listed; extraction in a
worker thread) with a fresh run cache per read. "loop lag" is the longest delay a 5 ms ticker
on the event loop saw during the reads: it stays small when extraction runs off the loop.

Run: `python bench/web_tools.py` (PDF generation needs fpdf2 from the `test` extra). Prints
figures; no asserts. Record `uptime` with them — other processes share the CPU.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import time

from agentur.context import RequestContext, Role
from agentur.egress.policy import AllowList, EgressPolicy
from agentur.tools.detect_language import detect
from agentur.tools.read_url import ReadUrlArguments, read_url
from agentur.tools.tool import ToolContext

RUNS = 7
NAV = "<nav>" + " ".join(f"<a href='/s{n}'>Section {n}</a>" for n in range(40)) + "</nav>"
PARAGRAPH = (
    "<p>The alpine valleys hold villages, pastures and forests; walkers find marked trails, "
    "mountain huts and cable cars that bring them above the tree line in summer.</p>"
)


def html_page(paragraphs: int) -> bytes:
    body = "".join(
        f"<h2>Part {n}</h2>{PARAGRAPH}" if n % 5 == 0 else PARAGRAPH for n in range(paragraphs)
    )
    return (
        f"<html><head><title>Bench</title><script>var x=1;</script></head><body>{NAV}"
        f"<div class='ad'>Advertisement</div><article><h1>Bench page</h1>{body}</article>"
        "<footer>Footer</footer></body></html>"
    ).encode()


def pdf_document(pages: int) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for page in range(pages):
        pdf.add_page()
        pdf.multi_cell(0, 6, f"Page {page}. " + "Revenue grew in the alpine region. " * 60)
    return bytes(pdf.output())


def respond(body: bytes, content_type: str) -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"Connection: close\r\n\r\n" + body


async def serve(pages: dict[str, bytes]) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        writer.write(pages[head.split(b" ")[1].decode()])
        await writer.drain()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def ticker(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - started - 0.005)


async def bench_read_url() -> None:
    pages = {
        "/article": respond(html_page(12), "text/html; charset=utf-8"),
        "/big.html": respond(html_page(4_000), "text/html; charset=utf-8"),
        "/report.pdf": respond(pdf_document(20), "application/pdf"),
        "/plain.txt": respond(("line of plain text\n" * 50_000).encode(), "text/plain"),
    }
    server = await serve(pages)
    port = server.sockets[0].getsockname()[1]
    policy = EgressPolicy(allowed=AllowList.parse(f"127.0.0.1:{port}"), max_bytes=10 * 2**20)
    lags: list[float] = []
    stop = asyncio.Event()
    idle = asyncio.create_task(ticker(lags, stop))
    await asyncio.sleep(1.0)
    stop.set()
    await idle
    print(f"loop lag with nothing else running: max {max(lags) * 1000:.1f} ms (machine noise)")
    print(f"{'page':<12} {'bytes':>9} {'text chars':>10} {'median ms':>9} {'max loop lag ms':>15}")
    for path, reply in pages.items():
        timings: list[float] = []
        lags: list[float] = []
        stop = asyncio.Event()
        tick = asyncio.create_task(ticker(lags, stop))
        for _ in range(RUNS):
            context = ToolContext(
                request=RequestContext("u", "m", Role.member),
                runtime=None,
                web_egress=policy,  # type: ignore[arg-type]
            )
            started = time.perf_counter()
            page = await read_url(ReadUrlArguments(url=f"http://127.0.0.1:{port}{path}"), context)
            timings.append(time.perf_counter() - started)
        stop.set()
        await tick
        size = len(reply) - reply.index(b"\r\n\r\n") - 4
        print(
            f"{path:<12} {size:>9} {page['total_length']:>10} "
            f"{statistics.median(timings) * 1000:>9.1f} {max(lags) * 1000:>15.1f}"
        )
    server.close()


def bench_detect_language() -> None:
    short = "Guten Tag, ich möchte gerne einen Termin für nächste Woche vereinbaren."
    long = ("Les vallées alpines abritent des villages, des pâturages et des forêts. " * 70)[:5_000]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    detect("warm up: load the models")
    load = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"detect_language: first call (loads models) {load * 1000:.0f} ms, "
        f"peak RSS +{after - before:.0f} MB"
    )
    for label, text in (("72 chars", short), ("5,000 chars", long)):
        timings = []
        for _ in range(50):
            started = time.perf_counter()
            detect(text)
            timings.append(time.perf_counter() - started)
        print(f"detect_language {label}: median {statistics.median(timings) * 1000:.2f} ms")


if __name__ == "__main__":
    with open("/proc/loadavg") as load:
        print("load average:", " ".join(load.read().split()[:3]))
    asyncio.run(bench_read_url())
    bench_detect_language()

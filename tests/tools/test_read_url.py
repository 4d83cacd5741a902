"""read_url against loopback web servers: main text only, documents, redirects, limits,
windows and the per-run cache — every download through the egress module."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentur.agent.events import AgentEvent
from agentur.ai.messages import ToolCall
from agentur.context import RequestContext, Role
from agentur.egress.policy import AllowList, EgressPolicy
from agentur.runtime import Runtime
from agentur.tools.read_url import TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.workspace.files import FileService
from tests.egress.listeners import listening
from tests.knowledge.sample_files import pdf_bytes
from tests.reread_settings import settings_runtime
from tests.tools.web_pages import ARTICLE, redirect_to, response, site

READ_URL = TOOLS[0]
MEMBER = RequestContext("u1", "m1", Role.member)


def allowing(*ports: int, **limits: Any) -> EgressPolicy:
    entries = ",".join(f"127.0.0.1:{port}" for port in ports)
    return EgressPolicy(allowed=AllowList.parse(entries), **limits)


async def read(
    policy: EgressPolicy, context: ToolContext | None = None, **arguments: Any
) -> tuple[bool, Any]:
    """One call through the lifecycle wrapper: (is_error, parsed result or error text)."""
    context = context or ToolContext(request=MEMBER, runtime=settings_runtime(), web_egress=policy)
    events: list[AgentEvent] = []
    outcome = await run_tool(
        READ_URL,
        ToolCall("c1", "read_url", arguments),
        context,
        ToolLimits(egress=policy),
        events.append,
    )
    return outcome.is_error, outcome.content if outcome.is_error else json.loads(outcome.content)


async def read_page(pages: dict[str, bytes], path: str, **limits: Any) -> tuple[bool, Any]:
    """`path` read from a loopback site serving `pages` (the site allow-listed)."""
    server = await site(pages)
    try:
        return await read(
            allowing(server.port, **limits), url=f"http://127.0.0.1:{server.port}{path}"
        )
    finally:
        await server.stop()


async def test_an_article_page_comes_back_as_its_main_text_with_headings_and_links() -> None:
    failed, page = await read_page({"/alps": response(ARTICLE)}, "/alps")
    assert not failed, page
    text = page["content"]
    assert page["title"] == "Hiking in the Swiss Alps"
    assert "# Hiking in the Swiss Alps" in text and "## Best season" in text
    assert "[alpine weather service](https://weather.example.org/alps)" in text
    assert "warm clothes" in text
    for junk in ("ADVERTISEMENT", "Shop now", "BUY CHEAP", "trackVisitor", "Cookie", "gadgets"):
        assert junk not in text
    assert page["total_length"] == len(text) and page["next_offset"] is None


async def test_a_pdf_is_read_through_the_knowledge_extractor() -> None:
    pdf = response(pdf_bytes(), "application/pdf")
    failed, page = await read_page({"/report.pdf": pdf}, "/report.pdf")
    assert not failed, page
    assert page["content_type"] == "application/pdf" and page["title"] == "Annual Report"
    assert "Revenue grew strongly in the alpine region" in page["content"]
    assert "North" in page["content"]


async def test_a_redirect_chain_is_followed_to_the_final_url() -> None:
    pages = {"/article": response(ARTICLE)}
    server = await site(pages)
    base = f"http://127.0.0.1:{server.port}"
    pages["/old"] = redirect_to(f"{base}/moved")
    pages["/moved"] = redirect_to("/article")
    try:
        failed, page = await read(allowing(server.port), url=f"{base}/old")
    finally:
        await server.stop()
    assert not failed, page
    assert page["url"] == f"{base}/article" and "Best season" in page["content"]
    assert [head.split(b" ")[1] for head in server.requests] == [b"/old", b"/moved", b"/article"]


async def test_a_redirect_into_a_private_address_is_refused_before_connecting() -> None:
    inside = await listening("127.0.0.1")  # not on the allow-list
    pages: dict[str, bytes] = {}
    server = await site(pages)
    pages["/go"] = redirect_to(f"http://127.0.0.1:{inside.port}/secret")
    try:
        failed, error = await read(allowing(server.port), url=f"http://127.0.0.1:{server.port}/go")
    finally:
        await server.stop()
        await inside.stop()
    assert failed and "loopback" in error
    assert len(server.requests) == 1 and inside.connections == 0


async def test_an_oversized_body_is_refused_clearly() -> None:
    big = response(b"x" * 5_000, "text/plain")
    failed, error = await read_page({"/big": big}, "/big", max_bytes=1_000)
    assert failed and "larger than 1000 bytes" in error


async def test_a_slow_server_runs_into_the_web_time_limit() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(3)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        failed, error = await read(
            allowing(port, timeout_seconds=0.3), url=f"http://127.0.0.1:{port}/"
        )
    finally:
        server.close()
    assert failed and "took longer than 0.3 s" in error


async def test_windows_cover_a_long_page_exactly_and_the_page_is_downloaded_once() -> None:
    text = "".join(f"line {number:05d} of a long plain text page\n" for number in range(900))
    server = await site({"/long.txt": response(text.encode(), "text/plain; charset=utf-8")})
    policy = allowing(server.port)
    context = ToolContext(request=MEMBER, runtime=settings_runtime(), web_egress=policy)
    url = f"http://127.0.0.1:{server.port}/long.txt"
    windows: list[str] = []
    offset: int | None = 0
    try:
        while offset is not None:
            failed, page = await read(policy, context, url=url, offset=offset, limit=7_000)
            assert not failed, page
            assert page["total_length"] == len(text) and page["offset"] == offset
            windows.append(page["content"])
            offset = page["next_offset"]
    finally:
        await server.stop()
    assert len(windows) == -(-len(text) // 7_000) > 1
    assert "".join(windows) == text
    assert len(server.requests) == 1  # the further windows came from the run's cache


@pytest.mark.parametrize("content_type", ["image/png", "application/octet-stream"])
async def test_an_unreadable_content_type_is_named(content_type: str) -> None:
    failed, error = await read_page({"/x": response(b"\x89PNG....", content_type)}, "/x")
    assert failed and content_type in error and "HTML, PDF" in error


async def test_an_error_status_is_reported() -> None:
    failed, error = await read_page({}, "/gone")
    assert failed and "HTTP 404" in error


async def test_save_as_stores_the_document_as_a_workspace_file(runtime: Runtime, tenants) -> None:
    alice = await tenants.member("acme")
    viewer = await tenants.member("acme", Role.viewer)
    server = await site(
        {"/report.pdf": response(pdf_bytes(), "application/pdf"), "/alps": response(ARTICLE)}
    )
    policy = allowing(server.port)
    base = f"http://127.0.0.1:{server.port}"
    mine = ToolContext(request=alice.context, runtime=runtime, web_egress=policy)
    theirs = ToolContext(request=viewer.context, runtime=runtime, web_egress=policy)
    try:
        failed, pdf = await read(policy, mine, url=f"{base}/report.pdf", save_as="report.pdf")
        assert not failed, pdf
        failed, article = await read(policy, mine, url=f"{base}/alps", save_as="alps.md")
        assert not failed, article
        failed, refused = await read(policy, theirs, url=f"{base}/alps", save_as="mine.md")
    finally:
        await server.stop()
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        stored_pdf = await files.get(pdf["saved_file"]["file_id"])
        _, stored_text = await files.read_text(article["saved_file"]["file_id"])
    assert stored_pdf.mime_type == "application/pdf" and stored_pdf.size == len(pdf_bytes())
    assert stored_text == article["content"] and "ADVERTISEMENT" not in stored_text
    assert failed and "read-only" in refused


async def test_a_page_without_any_text_is_refused_clearly() -> None:
    empty = response(b"<html><body><div></div></body></html>")
    failed, error = await read_page({"/empty": empty}, "/empty")
    assert failed and "has no readable text" in error

"""`read_url`: a web page or document as text, in windows, through the one egress module.

The download goes through `agentur.egress.fetch` (http/https only, global addresses only unless
allow-listed, pinned to the checked address, every redirect re-checked) under the web caps
(`AGENTUR_WEB_MAX_BYTES`, `AGENTUR_WEB_TIMEOUT_SECONDS`). HTML becomes its main text with
title, headings and links (trafilatura drops navigation, ads and scripts); PDF, DOCX and XLSX
go through the knowledge store's extractors; text and JSON come back as they are. Each URL is
downloaded once per run: further windows come from the run's cache.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, Field

from agentur.egress.fetch import Fetched, fetch
from agentur.errors import AgenturError, ForbiddenError, InvalidInputError
from agentur.knowledge.extract.settings import OcrSettings
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import store_file
from agentur.tools.workspace_files import describe

DEFAULT_LIMIT = 10_000
MAX_LIMIT = 50_000
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
DOCUMENT_TYPES = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
}


class UnreadableContentError(InvalidInputError):
    title = "Unreadable content"


class ReadUrlArguments(BaseModel):
    url: str = Field(description="An http(s) URL.")
    offset: int = Field(default=0, ge=0, description="Character offset into the page text.")
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Characters to return."
    )
    save_as: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        description="Also store the document as a workspace file of this name.",
    )


@dataclass(frozen=True, slots=True)
class Page:
    url: str  # after redirects
    title: str
    text: str
    content_type: str
    body: bytes  # as downloaded, for `save_as`


def media_type(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower()


def _html_text(body: bytes, url: str, ocr: OcrSettings) -> tuple[str, str]:
    # Heavy imports; only when a page is read.
    import trafilatura
    from trafilatura.metadata import extract_title
    from trafilatura.utils import load_html

    tree = load_html(body)
    if tree is None:
        raise UnreadableContentError(f"{url} is not parseable HTML")
    # Title only: trafilatura's full metadata pass (dates, authors) costs more than the text.
    title = extract_title(tree) or ""
    text = trafilatura.extract(
        tree,
        url=url,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        with_metadata=False,
    )
    if not text:
        # No main text found (a link hub, a tiny page): all of its text rather than nothing.
        from agentur.knowledge.extract import extract

        text = extract(body, "page.html", "text/html", ocr).text
    if not text.strip():
        raise UnreadableContentError(f"{url} has no readable text")
    return title, text


def _document_text(body: bytes, url: str, kind: str, ocr: OcrSettings) -> tuple[str, str]:
    from agentur.knowledge.extract import extract

    name = (urlsplit(url).path.rsplit("/", 1)[-1] or "document").split(".")[0]
    document = extract(body, name + DOCUMENT_TYPES[kind], kind, ocr)
    title = document.sections[0].title if document.sections else name
    return title, document.text


def _plain_text(fetched: Fetched) -> str:
    # httpx applies the charset of the Content-Type header (UTF-8 when none is given).
    return httpx.Response(
        200, headers={"content-type": fetched.content_type}, content=fetched.body
    ).text


def to_page(fetched: Fetched, ocr: OcrSettings) -> Page:
    """The readable text of a download (a scanned PDF read by OCR under `ocr`);
    `UnreadableContentError` names what is not readable."""
    kind = media_type(fetched.content_type)
    if kind in HTML_TYPES:
        title, text = _html_text(fetched.body, fetched.url, ocr)
    elif kind in DOCUMENT_TYPES:
        title, text = _document_text(fetched.body, fetched.url, kind, ocr)
    elif kind.startswith("text/") or kind == "application/json" or kind.endswith("+json"):
        title, text = "", _plain_text(fetched)
    else:
        raise UnreadableContentError(
            f"{fetched.url} is {kind or 'of no declared content type'}; read_url reads HTML, "
            "PDF, DOCX, XLSX, text and JSON"
        )
    return Page(fetched.url, title, text, kind, fetched.body)


async def download(url: str, context: ToolContext) -> Page:
    fetched = await fetch(
        url, context.web_egress, headers={"accept": "text/html,application/pdf,*/*;q=0.8"}
    )
    if fetched.status_code >= 400:
        raise AgenturError(f"{fetched.url} answered HTTP {fetched.status_code}")
    # Extraction parses megabytes of markup: off the event loop.
    return await asyncio.to_thread(to_page, fetched, context.runtime.all_settings.ocr)


async def _save(page: Page, name: str, context: ToolContext) -> dict[str, Any]:
    if not context.request.can_write:
        raise ForbiddenError(
            f"save_as stores a file and your role ({context.request.role}) is read-only"
        )
    # Documents keep their bytes (the knowledge store indexes them as they are); a web page is
    # stored as its extracted text, without the navigation and scripts around it.
    if page.content_type in DOCUMENT_TYPES:
        data, mime = page.body, page.content_type
    else:
        data, mime = (
            page.text.encode(),
            "text/markdown" if page.content_type in HTML_TYPES else "text/plain",
        )
    return describe(await store_file(context, name, data, mime))


async def read_url(args: ReadUrlArguments, context: ToolContext) -> dict[str, Any]:
    cache: dict[str, Page] = context.deps.pages
    page = cache.get(args.url)
    if page is None:
        page = cache[args.url] = await download(args.url, context)
    content = page.text[args.offset : args.offset + args.limit]
    end = args.offset + len(content)
    result: dict[str, Any] = {
        "url": page.url,
        "title": page.title,
        "content": content,
        "offset": args.offset,
        "limit": args.limit,
        "total_length": len(page.text),
        "next_offset": end if end < len(page.text) else None,
        "content_type": page.content_type,
    }
    if args.save_as:
        result["saved_file"] = await _save(page, args.save_as, context)
    return result


TOOLS = [
    Tool(
        name="read_url",
        description="Read a web page or online document (HTML, PDF, DOCX, XLSX, text, JSON) as "
        "text: its main content with title, headings and links, in windows (offset/limit; "
        "total_length tells how much there is). save_as also stores it as a workspace file.",
        arguments=ReadUrlArguments,
        handler=read_url,
        # Reading changes nothing; save_as checks the role itself.
        read_only=True,
        toolbox="web",
        url_arguments=("url",),
    )
]

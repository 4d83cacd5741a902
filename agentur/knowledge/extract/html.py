"""HTML → UDM with lxml (BSD, the fast, maintained libxml2 binding; tolerant of broken markup).

h1–h6 are headings, tables keep their rows, lists and `pre` blocks keep their type, images
become image blocks carrying their alt text. Scripts, styles and navigation chrome are skipped.
"""

from __future__ import annotations

from typing import Any

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document

SKIP = {"script", "style", "noscript", "template", "head", "nav", "footer", "svg"}
HEADINGS = {f"h{n}": n for n in range(1, 7)}
TEXT_BLOCKS = {"p", "blockquote", "figcaption", "dd", "dt", "address", "summary"}


def _text(element: Any) -> str:
    return " ".join(element.text_content().split())


def extract_html(data: bytes) -> Document:
    import lxml.html

    root = lxml.html.document_fromstring(data or b"<html></html>")
    builder = DocumentBuilder("html")
    title = root.findtext(".//title")
    body = root.find("body")
    if title and title.strip() and not root.xpath("//h1"):
        builder.heading(title.strip(), 1)
    _walk(body if body is not None else root, builder)
    return builder.build()


def _walk(element: Any, builder: DocumentBuilder) -> None:
    inline: list[str] = []

    def flush() -> None:
        text = " ".join(" ".join(inline).split())
        if text:
            builder.block(ContentType.text, text)
        inline.clear()

    if element.text and element.text.strip():
        inline.append(element.text)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in SKIP or not tag:
            pass
        elif tag in HEADINGS:
            flush()
            builder.heading(_text(child), HEADINGS[tag])
        elif tag == "table":
            flush()
            rows = [[_text(cell) for cell in row.xpath("./th|./td")] for row in child.iter("tr")]
            builder.table(rows)
        elif tag in ("ul", "ol"):
            flush()
            items = [f"- {_text(li)}" for li in child.iter("li") if _text(li)]
            builder.block(ContentType.list, "\n".join(items))
        elif tag == "pre":
            flush()
            builder.block(ContentType.code, child.text_content())
        elif tag == "img":
            flush()
            alt = (child.get("alt") or "").strip()
            builder.block(ContentType.image, f"[image: {alt or child.get('src', '')}]")
        elif tag in TEXT_BLOCKS:
            flush()
            builder.block(ContentType.text, _text(child))
        elif len(child) or tag in ("div", "section", "article", "main", "body", "header"):
            flush()
            _walk(child, builder)
        else:
            inline.append(child.text_content())
        if child.tail and child.tail.strip():
            inline.append(child.tail)
    flush()

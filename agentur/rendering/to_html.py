"""Blocks to a standalone HTML page: every text escaped, images inlined as data URIs, so the
file shows the same anywhere without reaching the workspace."""

from __future__ import annotations

import base64
from html import escape

from agentur.rendering.blocks import BulletList, Code, Document, Heading, Image, Paragraph, Table

STYLE = (
    "body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}"
    "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .5em}"
    "img{max-width:100%}"
)


def _mime(data: bytes) -> str:
    return "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"


def _block(block: object, images: dict[str, bytes]) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{escape(block.text)}</p>"
    if isinstance(block, BulletList):
        tag = "ol" if block.ordered else "ul"
        return f"<{tag}>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + f"</{tag}>"
    if isinstance(block, Table):
        head = "".join(f"<th>{escape(c)}</th>" for c in block.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in block.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if isinstance(block, Code):
        return f"<pre><code>{escape(block.text)}</code></pre>"
    if isinstance(block, Image) and block.source in images:
        data = images[block.source]
        uri = f"data:{_mime(data)};base64,{base64.b64encode(data).decode()}"
        return f'<img src="{uri}" alt="{escape(block.alt)}">'
    return ""


def render_html(document: Document) -> bytes:
    body = "\n".join(_block(block, document.images) for block in document.blocks)
    page = (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{escape(document.title)}'
        f"</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
    return page.encode()

"""Markdown → UDM with markdown-it-py (MIT, CommonMark-compliant, maintained by
executablebooks). Headings, GFM tables, lists, fenced code and images keep their types."""

from __future__ import annotations

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document


def extract_markdown(text: str) -> Document:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    lines = text.splitlines()
    builder = DocumentBuilder("markdown")
    index = 0
    depth = 0  # nesting of lists/quotes: their inner paragraphs belong to the container
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open":
            builder.heading(tokens[index + 1].content, int(token.tag[1:]))
            index += 3
            continue
        if token.type in ("bullet_list_open", "ordered_list_open") and depth == 0:
            start, end = token.map or (0, 0)
            builder.block(ContentType.list, "\n".join(lines[start:end]))
        elif token.type == "table_open":
            rows: list[list[str]] = []
            close = index
            while tokens[close].type != "table_close":
                current = tokens[close]
                if current.type == "tr_open":
                    rows.append([])
                elif current.type == "inline" and rows:
                    rows[-1].append(current.content)
                close += 1
            builder.table(rows)
            index = close + 1
            continue
        elif token.type in ("fence", "code_block") and depth == 0:
            builder.block(ContentType.code, token.content)
        elif token.type == "blockquote_open" and depth == 0:
            start, end = token.map or (0, 0)
            builder.block(ContentType.text, "\n".join(lines[start:end]))
        elif token.type == "inline" and depth == 0:
            children = [
                c for c in token.children or [] if not (c.type == "text" and not c.content.strip())
            ]
            if len(children) == 1 and children[0].type == "image":
                alt = children[0].content or children[0].attrGet("src") or ""
                builder.block(ContentType.image, f"[image: {alt}]")
            else:
                builder.block(ContentType.text, token.content)
        if token.nesting == 1 and token.type in (
            "bullet_list_open",
            "ordered_list_open",
            "blockquote_open",
        ):
            depth += 1
        elif token.nesting == -1 and token.type in (
            "bullet_list_close",
            "ordered_list_close",
            "blockquote_close",
        ):
            depth -= 1
        index += 1
    return builder.build()

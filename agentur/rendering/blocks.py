"""Markdown to a small block model every output format renders: headings, paragraphs, lists,
tables, code and images. Parsed by markdown-it (CommonMark plus GFM tables, raw HTML off), so
the formats agree on what the document says."""

from __future__ import annotations

from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True, slots=True)
class Paragraph:
    text: str


@dataclass(frozen=True, slots=True)
class BulletList:
    items: list[str]
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True, slots=True)
class Code:
    text: str


@dataclass(frozen=True, slots=True)
class Image:
    source: str  # a workspace file id; the tool resolves it to bytes
    alt: str


Block = Heading | Paragraph | BulletList | Table | Code | Image


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)  # source → PNG/JPEG bytes

    @property
    def title(self) -> str:
        return next((b.text for b in self.blocks if isinstance(b, Heading)), "Document")


def _inline_text(token: Token) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" " if child.type == "softbreak" else "\n")
    return "".join(parts)


def _images(token: Token) -> list[Image]:
    return [
        Image(str(child.attrs.get("src", "")), child.content)
        for child in token.children or []
        if child.type == "image"
    ]


def _table(tokens: list[Token], start: int) -> tuple[Table, int]:
    header: list[str] = []
    rows: list[list[str]] = []
    row: list[str] = []
    index = start
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "tr_open":
            row = []
        elif token.type == "inline":
            row.append(_inline_text(token))
        elif token.type == "tr_close":
            if header:
                rows.append(row)
            else:
                header = row
        index += 1
    return Table(header, rows), index


def parse_markdown(text: str) -> list[Block]:
    tokens = MarkdownIt("commonmark", {"html": False}).enable("table").parse(text)
    blocks: list[Block] = []
    list_items: list[str] | None = None
    ordered = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type in ("bullet_list_open", "ordered_list_open") and list_items is None:
            list_items, ordered = [], token.type == "ordered_list_open"
        elif token.type in ("bullet_list_close", "ordered_list_close") and token.level == 0:
            blocks.append(BulletList(list_items or [], ordered))
            list_items = None
        elif token.type == "heading_open":
            blocks.append(Heading(int(token.tag[1]), _inline_text(tokens[index + 1])))
            index += 1
        elif token.type == "inline" and list_items is not None:
            list_items.append(_inline_text(token))
        elif token.type == "inline":
            blocks.extend(_images(token))
            if text := _inline_text(token).strip():
                blocks.append(Paragraph(text))
        elif token.type in ("fence", "code_block"):
            blocks.append(Code(token.content.rstrip("\n")))
        elif token.type == "table_open":
            table, index = _table(tokens, index)
            blocks.append(table)
        index += 1
    return blocks

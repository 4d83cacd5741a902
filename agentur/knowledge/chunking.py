"""Structure-following chunking.

Consecutive blocks under the same heading path are packed together up to the chunk size;
a heading change always starts a new chunk; a table stays one chunk when it fits
`knowledge_table_max_chars`, otherwise it is split between rows. Oversized prose is split by
`semantic-text-splitter` (sentence/word boundaries, exact character offsets).
A chunk's `text` is exactly `document.text[start:end]`; its heading path is stored beside it and
put in front of the text only for embedding and lexical matching.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentur.knowledge.udm import Block, ContentType, Document


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    size: int
    overlap: int
    table_max: int

    @property
    def key(self) -> str:
        return f"c{self.size}-{self.overlap}-{self.table_max}"


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    ordinal: int
    text: str
    start: int
    end: int
    heading_path: tuple[str, ...]
    content_type: ContentType
    page: int | None

    @property
    def context_text(self) -> str:
        """What is embedded and indexed: the heading path, then the text."""
        heading = " > ".join(self.heading_path)
        return f"{heading}\n\n{self.text}" if heading else self.text


def _splitter(config: ChunkingConfig):  # noqa: ANN202 - the Rust class has no stub
    from semantic_text_splitter import TextSplitter

    overlap = min(config.overlap, config.size // 2)
    return TextSplitter((max(1, config.size // 2), config.size), overlap=overlap)


def chunk_document(document: Document, config: ChunkingConfig) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    splitter = None
    for group in _groups(document.blocks, config):
        first, last = group[0], group[-1]
        kinds = {b.content_type for b in group}
        kind = kinds.pop() if len(kinds) == 1 else ContentType.text
        if last.end - first.start <= config.size or (
            kind is ContentType.table and last.end - first.start <= config.table_max
        ):
            pieces = [(first.start, last.end)]
        elif kind is ContentType.table:
            pieces = _table_pieces(document.text, first.start, last.end, config.table_max)
        else:
            splitter = splitter or _splitter(config)
            text = document.text[first.start : last.end]
            pieces = [
                (first.start + offset, first.start + offset + len(piece))
                for offset, piece in splitter.chunk_indices(text)
            ]
        for start, end in pieces:
            drafts.append(
                ChunkDraft(
                    ordinal=len(drafts),
                    text=document.text[start:end],
                    start=start,
                    end=end,
                    heading_path=first.heading_path,
                    content_type=kind,
                    page=_page_at(group, start),
                )
            )
    return drafts


def _groups(blocks: list[Block], config: ChunkingConfig) -> list[list[Block]]:
    groups: list[list[Block]] = []
    for block in blocks:
        current = groups[-1] if groups else None
        joinable = (
            current is not None
            and current[0].heading_path == block.heading_path
            and ContentType.table not in (current[-1].content_type, block.content_type)
            and block.end - current[0].start <= config.size
        )
        if joinable and current is not None:
            current.append(block)
        else:
            groups.append([block])
    return groups


def _table_pieces(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Row-aligned slices of a table, each at most `limit` characters where rows allow."""
    pieces: list[tuple[int, int]] = []
    piece_start = start
    line_start = start
    while line_start < end:
        newline = text.find("\n", line_start, end)
        line_end = end if newline == -1 else newline
        if line_end - piece_start > limit and line_start > piece_start:
            pieces.append((piece_start, line_start - 1))
            piece_start = line_start
        line_start = line_end + 1
    pieces.append((piece_start, end))
    return pieces


def _page_at(group: list[Block], offset: int) -> int | None:
    for block in group:
        if block.start <= offset < block.end or offset < block.start:
            return block.page
    return group[-1].page

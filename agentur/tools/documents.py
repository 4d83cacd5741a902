"""Document tools over the UDM of indexed files: structure, blocks, sections.

All reads go through the knowledge store's section reader, which checks the caller's
visibility of the file on every call (a file of another tenant is simply not found).
Every reader is windowed: it says how much there is and where the next window starts.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.errors import InvalidInputError
from agentur.knowledge.store import knowledge_store
from agentur.knowledge.udm import Block, ContentType, Document
from agentur.tools.tool import Tool, ToolContext

MAX_BLOCKS = 200
PREVIEW_CHARS = 160


async def _open(context: ToolContext, file_id: str) -> tuple[Any, Any, Document]:
    store = knowledge_store(context.runtime)
    async with context.runtime.database.session() as session:
        return await store.reader.document(session, context.request, file_id)


def _block(document: Document, block: Block, text_limit: int | None) -> dict[str, Any]:
    body = document.block_text(block)
    data: dict[str, Any] = {
        "index": block.index,
        "content_type": block.content_type.value,
        "heading_path": list(block.heading_path),
        "page": block.page,
        "start": block.start,
        "end": block.end,
        "length": len(body),
    }
    if text_limit is None:
        data["text"] = body
    else:
        data["preview"] = body[:text_limit]
    if block.rows is not None and text_limit is None:
        data["rows"] = [list(row) for row in block.rows]
    return data


class FileArguments(BaseModel):
    file_id: str


class BlockWindowArguments(BaseModel):
    file_id: str
    first_block: int = Field(default=0, ge=0)
    max_blocks: int = Field(default=50, ge=1, le=MAX_BLOCKS)


class ReadObjectsArguments(BaseModel):
    file_id: str
    block_indexes: list[int] = Field(min_length=1, max_length=MAX_BLOCKS)


class ExtractItemArguments(BaseModel):
    file_id: str
    heading_path: list[str] | None = Field(
        default=None, description="Titles down to the section, e.g. ['Report', 'Figures']."
    )
    start: int | None = Field(default=None, ge=0, description="Character range instead.")
    end: int | None = Field(default=None, ge=0)
    offset: int = Field(default=0, ge=0, description="Offset inside the section.")
    limit: int = Field(default=4_000, ge=1, le=50_000)


class FilterArguments(BlockWindowArguments):
    content_type: ContentType


async def browse_container(args: FileArguments, context: ToolContext) -> dict[str, Any]:
    file, index, document = await _open(context, args.file_id)
    return {
        "file_id": file.id,
        "name": file.name,
        "format": document.format,
        "status": index.status,
        "summary": index.summary,
        "sections": [
            {"index": s.index, "path": list(s.path), "level": s.level, "page": s.page}
            for s in document.sections
        ],
    }


async def get_udm_structure(args: FileArguments, context: ToolContext) -> dict[str, Any]:
    file, _, document = await _open(context, args.file_id)
    counts: dict[str, int] = {}
    for block in document.blocks:
        counts[block.content_type.value] = counts.get(block.content_type.value, 0) + 1
    return {
        "file_id": file.id,
        "format": document.format,
        "page_count": document.page_count,
        "length": len(document.text),
        "block_count": len(document.blocks),
        "blocks_by_type": counts,
        "sections": [
            {
                "path": list(s.path),
                "level": s.level,
                "page": s.page,
                "start": s.start,
                "end": s.end,
            }
            for s in document.sections
        ],
    }


def _window(blocks: list[Block], args: BlockWindowArguments) -> tuple[list[Block], int | None]:
    chosen = blocks[args.first_block : args.first_block + args.max_blocks]
    following = args.first_block + len(chosen)
    return chosen, following if following < len(blocks) else None


async def walk_udm_blocks(args: BlockWindowArguments, context: ToolContext) -> dict[str, Any]:
    _, _, document = await _open(context, args.file_id)
    chosen, next_block = _window(document.blocks, args)
    return {
        "blocks": [_block(document, b, PREVIEW_CHARS) for b in chosen],
        "total_blocks": len(document.blocks),
        "next_block": next_block,
    }


async def filter_udm_by_type(args: FilterArguments, context: ToolContext) -> dict[str, Any]:
    _, _, document = await _open(context, args.file_id)
    matching = [b for b in document.blocks if b.content_type is args.content_type]
    chosen, next_block = _window(matching, args)
    return {
        "blocks": [_block(document, b, None) for b in chosen],
        "total_matching": len(matching),
        "next_block": next_block,
    }


async def read_content_objects(args: ReadObjectsArguments, context: ToolContext) -> dict[str, Any]:
    _, _, document = await _open(context, args.file_id)
    missing = [i for i in args.block_indexes if not 0 <= i < len(document.blocks)]
    if missing:
        raise InvalidInputError(
            f"no blocks {missing}; the document has blocks 0 to {len(document.blocks) - 1}"
        )
    return {"blocks": [_block(document, document.blocks[i], None) for i in args.block_indexes]}


async def extract_container_item(
    args: ExtractItemArguments, context: ToolContext
) -> dict[str, Any]:
    store = knowledge_store(context.runtime)
    async with context.runtime.database.session() as session:
        window = await store.reader.read_section(
            session,
            context.request,
            args.file_id,
            heading_path=args.heading_path,
            start=args.start,
            end=args.end,
            offset=args.offset,
            limit=args.limit,
        )
    return {
        "file_id": window.file_id,
        "heading_path": window.heading_path,
        "content": window.content,
        "offset": window.offset,
        "section_start": window.section_start,
        "total_length": window.total_length,
        "next_offset": window.next_offset,
    }


TOOLS: list[Tool[Any]] = [
    Tool(
        "browse_container",
        "Outline of an indexed document: its sections (heading paths, pages) and a summary.",
        FileArguments,
        browse_container,
        read_only=True,
        toolbox="documents",
    ),
    Tool(
        "read_content_objects",
        "Full text (and table rows) of blocks of an indexed document, by block index.",
        ReadObjectsArguments,
        read_content_objects,
        read_only=True,
        toolbox="documents",
    ),
    Tool(
        "extract_container_item",
        "Read a section (by heading path) or character range of an indexed document, in "
        "windows (total_length, next_offset).",
        ExtractItemArguments,
        extract_container_item,
        read_only=True,
        toolbox="documents",
    ),
    Tool(
        "get_udm_structure",
        "Structure of an indexed document: format, pages, sections with offsets, block counts.",
        FileArguments,
        get_udm_structure,
        read_only=True,
        toolbox="documents",
    ),
    Tool(
        "walk_udm_blocks",
        "Walk the blocks of an indexed document in order, with heading path and a preview.",
        BlockWindowArguments,
        walk_udm_blocks,
        read_only=True,
        toolbox="documents",
    ),
    Tool(
        "filter_udm_by_type",
        "Blocks of one content type (text, table, image, code, list) of an indexed document.",
        FilterArguments,
        filter_udm_by_type,
        read_only=True,
        toolbox="documents",
    ),
]

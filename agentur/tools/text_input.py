"""The `text | file_id` input several tools take (translate, summarize, neutralize_data)."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from agentur.storage.models import File
from agentur.tools.tool import ToolContext
from agentur.tools.workspace_access import file_service

MAX_CHARS = 200_000


class TextOrFile(BaseModel):
    text: str | None = Field(default=None, max_length=MAX_CHARS, description="The text.")
    file_id: str | None = Field(default=None, description="Or: a workspace text file.")

    @model_validator(mode="after")
    def _one_input(self) -> TextOrFile:
        if (self.text is None) == (self.file_id is None):
            raise ValueError("give either text or file_id")
        return self


async def input_text(args: TextOrFile, context: ToolContext) -> tuple[File | None, str]:
    """The given text, or the file's text (visibility checked by the file service)."""
    if args.text is not None:
        return None, args.text
    async with file_service(context) as files:
        return await files.read_text(args.file_id or "")


def windows(text: str, size: int) -> list[str]:
    """`text` in consecutive pieces of at most `size` characters that join back to it exactly."""
    if len(text) <= size:
        return [text]
    from semantic_text_splitter import TextSplitter

    return TextSplitter(size, trim=False).chunks(text)

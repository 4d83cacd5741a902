"""The `text | file_id` input several tools take (translate, summarize, neutralize_data): a
file is read as its text whatever its format — a PDF, DOCX, XLSX, HTML page or scan as its
extracted text (agentur/workspace/document_text.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from agentur.storage.models import File
from agentur.tools.tool import ToolContext
from agentur.workspace.document_text import DocumentText

MAX_CHARS = 200_000


class TextOrFile(BaseModel):
    text: str | None = Field(default=None, max_length=MAX_CHARS, description="The text.")
    file_id: str | None = Field(
        default=None,
        description="Or: a workspace file — text, PDF, DOCX, XLSX, HTML or a scanned image.",
    )

    @model_validator(mode="after")
    def _one_input(self) -> TextOrFile:
        if (self.text is None) == (self.file_id is None):
            raise ValueError("give either text or file_id")
        return self


async def document_text(context: ToolContext, file_id: str) -> DocumentText:
    """The file's text as the model may see it (visibility and neutralization checked)."""
    documents = context.runtime.documents
    if documents is None:
        raise RuntimeError("the runtime has no document reader composed")
    return await documents.read(context.request, file_id, workflow_id=context.workflow_id)


async def input_text(args: TextOrFile, context: ToolContext) -> tuple[File | None, str]:
    """The given text, or the file's text."""
    if args.text is not None:
        return None, args.text
    found = await document_text(context, args.file_id or "")
    return found.file, found.text


def windows(text: str, size: int) -> list[str]:
    """`text` in consecutive pieces of at most `size` characters that join back to it exactly."""
    if len(text) <= size:
        return [text]
    from semantic_text_splitter import TextSplitter

    return TextSplitter(size, trim=False).chunks(text)

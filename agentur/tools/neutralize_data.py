"""`neutralize_data`: a neutralized copy of a text or a workspace file, saved as a NEW
workspace file — the original is never changed. Uses the gateway's `neutralize_text` (the
mandate's custom terms; within a workflow its stable placeholders), which needs no model."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from pydantic import Field

from agentur.tools.text_input import TextOrFile, input_text
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import store_file
from agentur.tools.workspace_files import describe

PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*_\d+\]")


class NeutralizeDataArguments(TextOrFile):
    name: str | None = Field(
        default=None,
        max_length=200,
        description="Name of the new file; default: '<original>.neutralized.txt'.",
    )


def _copy_name(args: NeutralizeDataArguments, original: str | None) -> str:
    if args.name:
        return args.name
    if original is None:
        return "neutralized.txt"
    return f"{PurePosixPath(original).stem}.neutralized.txt"


async def neutralize_data(args: NeutralizeDataArguments, context: ToolContext) -> dict[str, Any]:
    source, text = await input_text(args, context)
    neutral = await context.runtime.ai.neutralize_text(
        text, context.request, workflow_id=context.workflow_id
    )
    copy = await store_file(
        context, _copy_name(args, source.name if source else None), neutral.encode(), "text/plain"
    )
    found = PLACEHOLDER.findall(neutral)
    return {
        **describe(copy),
        "source_file_id": source.id if source else None,
        "replacements": len(found) - len(PLACEHOLDER.findall(text)),
        "placeholders": sorted(set(found)),
    }


TOOLS = [
    Tool(
        name="neutralize_data",
        description="Save a copy of a text or workspace file (text, PDF, DOCX, XLSX, HTML, scan) "
        "with personal data replaced by placeholders ([PERSON_1], [EMAIL_1] …) as a new text "
        "file; the original stays unchanged.",
        arguments=NeutralizeDataArguments,
        handler=neutralize_data,
        toolbox="ai",
    )
]

"""`translate`: a text or a workspace file (any format the knowledge store extracts)
into another language, through the gateway's `translate` operation (model selection,
neutralization and billing as for every call).

Long inputs go in windows cut at paragraph and sentence boundaries, one call each, so no
model has to return more than it can; the translations are joined in order."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.ai.messages import Message
from agentur.ai.operation_types import OperationType
from agentur.tools.gateway_call import ask_model
from agentur.tools.text_input import TextOrFile, input_text, windows
from agentur.tools.tool import Tool, ToolContext

WINDOW_CHARS = 6_000
# Output room per window: translations run up to ~1.5x the source in tokens (~4 chars each).
WINDOW_OUTPUT_TOKENS = WINDOW_CHARS * 3 // 8 + 256
MISSING = (
    "no chat model is configured to translate with; set AGENTUR_OPENAI_API_KEY, "
    "AGENTUR_ANTHROPIC_API_KEY, AGENTUR_GOOGLE_API_KEY, AGENTUR_MISTRAL_API_KEY or "
    "AGENTUR_OPENAI_COMPATIBLE_BASE_URL"
)


class TranslateArguments(TextOrFile):
    target_language: str = Field(
        min_length=2,
        max_length=40,
        description="Language to translate into, e.g. 'de' or 'French'.",
    )
    source_language: str | None = Field(
        default=None, max_length=40, description="Language of the input, if known."
    )


def instructions(target: str, source: str | None) -> str:
    origin = f"from {source} " if source else ""
    return (
        f"Translate the user's text {origin}into {target}. Keep its formatting (paragraphs, "
        "lists, Markdown) and keep placeholders in square brackets such as [EMAIL_1] exactly "
        "as they are. Answer with the translation only."
    )


async def translate(args: TranslateArguments, context: ToolContext) -> dict[str, Any]:
    _, text = await input_text(args, context)
    system = Message.system(instructions(args.target_language, args.source_language))
    parts: list[str] = []
    models: list[str] = []
    for window in windows(text, WINDOW_CHARS):
        if not window.strip():
            parts.append(window)
            continue
        response = await ask_model(
            context,
            OperationType.translate,
            [system, Message.user(window)],
            MISSING,
            temperature=0.0,
            max_output_tokens=WINDOW_OUTPUT_TOKENS,
        )
        # The splitter keeps the whitespace between windows; the model may not.
        lead = window[: len(window) - len(window.lstrip())]
        trail = window[len(window.rstrip()) :]
        parts.append(lead + response.text.strip() + trail)
        models.append(response.model)
    return {
        "translation": "".join(parts),
        "target_language": args.target_language,
        "windows": len(parts),
        "source_length": len(text),
        "models": sorted(set(models)),
    }


TOOLS = [
    Tool(
        name="translate",
        description="Translate a text or a workspace file (text, PDF, DOCX, XLSX, HTML, scan) "
        "into another language; long inputs are translated window by window.",
        arguments=TranslateArguments,
        handler=translate,
        read_only=True,
        toolbox="language",
        timeout_seconds=600.0,  # a long file is many model calls
    )
]

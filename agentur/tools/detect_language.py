"""`detect_language`: offline, with lingua, over every language lingua knows (German,
French, Italian and English among them; lingua has no Romansh). Detection runs in a worker
thread (the first call loads the models)."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from agentur.detect_language import rank_all_languages
from agentur.tools.tool import Tool, ToolContext

MAX_CHARS = 100_000
ALTERNATIVES = 3


class DetectLanguageArguments(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_CHARS, description="The text to examine.")


def detect(text: str) -> dict[str, Any]:
    """The most likely language (ISO 639-1 code, name, relative confidence 0–1) and runners-up;
    language None when the text has no letters lingua can judge."""
    ranked = [
        {"language": code, "name": name, "confidence": round(confidence, 3)}
        for code, name, confidence in rank_all_languages(text, ALTERNATIVES + 1)
    ]
    if not ranked:
        return {"language": None, "name": None, "confidence": 0.0, "alternatives": []}
    return {**ranked[0], "alternatives": ranked[1:]}


async def detect_language(args: DetectLanguageArguments, context: ToolContext) -> dict[str, Any]:
    return await asyncio.to_thread(detect, args.text)


TOOLS = [
    Tool(
        name="detect_language",
        description="Detect the language of a text (offline): ISO 639-1 code, name and a "
        "confidence between 0 and 1, with the runners-up.",
        arguments=DetectLanguageArguments,
        handler=detect_language,
        read_only=True,
        toolbox="language",
    )
]

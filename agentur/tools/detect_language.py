"""`detect_language` (T3): offline, with lingua, over every language lingua knows (German,
French, Italian and English among them; lingua has no Romansh).

All 75 languages in lingua's low-accuracy mode: its trigram models take ~80 MB and answer in
well under a millisecond once loaded, where the high-accuracy models of all languages take
~1.3 GB. Detection runs in a worker thread (the first call loads the models)."""

from __future__ import annotations

import asyncio
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field

from agentur.tools.tool import Tool, ToolContext

MAX_CHARS = 100_000
# Language is settled long before this; the rest only costs time.
SAMPLE_CHARS = 5_000
ALTERNATIVES = 3


class DetectLanguageArguments(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_CHARS, description="The text to examine.")


@lru_cache(maxsize=1)
def _detector() -> Any:
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()


def detect(text: str) -> dict[str, Any]:
    """The most likely language (ISO 639-1 code, name, relative confidence 0–1) and runners-up;
    language None when the text has no letters lingua can judge."""
    values = _detector().compute_language_confidence_values(text[:SAMPLE_CHARS])
    ranked = [
        {
            "language": value.language.iso_code_639_1.name.lower(),
            "name": value.language.name.title(),
            "confidence": round(value.value, 3),
        }
        for value in values[: ALTERNATIVES + 1]
        if value.value > 0
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

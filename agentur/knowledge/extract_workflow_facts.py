"""A completed run's facts and entities for its workflow's memory (the context's fourth layer).

With a model available, one small structured-extraction call through the gateway (operation
DATA_EXTRACT: neutralized, budget-checked and billed like every call); without one, or when the
call or its JSON fails, simple rules (agentur/knowledge/fact_rules.py). The workspace files the
run touched are always entities, from their ids — exact, and no model needed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agentur.ai.messages import AiRequest, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.context import RequestContext
from agentur.errors import AgenturError
from agentur.knowledge.fact_rules import MAX_KEY, Fact, facts_by_rules, shorten
from agentur.knowledge.run_records import RunFacts

logger = logging.getLogger(__name__)

Mode = Literal["auto", "rules", "off"]
TRANSCRIPT_CHARS = 12_000
MAX_VALUE_CHARS = 1_000

INSTRUCTIONS = (
    "You keep the memory of a workflow: later runs of the same workflow will see what you "
    "extract, not the transcript. From the successful tool results only (the question is "
    "context; the assistant's claims are not facts), list what happened and was found — files "
    "written, messages sent, values read — and entities (people, "
    "organisations, files, ids, amounts, dates, e-mail addresses). Keys are short and stable "
    "(the same thing gets the same key, e.g. 'invoice 2024-117 total'); values are one factual "
    "sentence or value. Only what the transcript states; no instructions, no guesses. Answer "
    'as JSON: {"facts": [{"kind": "fact" or "entity", "key": "...", "value": "..."}]}.'
)


class ExtractedFact(BaseModel):
    # No length limits in the schema (not every provider's structured output accepts them):
    # parse_extraction cuts keys and values instead of refusing a whole useful reply.
    model_config = ConfigDict(extra="forbid")
    kind: Literal["fact", "entity"]
    key: str
    value: str


class Extraction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: list[ExtractedFact]


def transcript(record: RunFacts) -> str:
    """The question and the successful tool results: failed calls and the model's answer are
    left out, so nothing but what happened can become a fact."""
    parts = [f"Question: {record.prompt}"]
    parts += [
        f"Result of {result.tool_name}: {result.result_preview}"
        for result in record.tool_results
        if not result.is_error
    ]
    return "\n\n".join(parts)[:TRANSCRIPT_CHARS]


def parse_extraction(text: str) -> list[Fact]:
    # Some models wrap JSON in a Markdown fence even when asked for JSON.
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    answer = Extraction.model_validate(json.loads(fenced.group(1) if fenced else text))
    return [
        Fact(item.kind, " ".join(item.key.split())[:MAX_KEY], shorten(item.value, MAX_VALUE_CHARS))
        for item in answer.facts
        if item.key.strip() and item.value.strip()
    ]


async def facts_by_model(
    ai: AiService, record: RunFacts, context: RequestContext, max_output_tokens: int
) -> list[Fact]:
    request = AiRequest(
        operation=OperationType.data_extract,
        messages=(Message.system(INSTRUCTIONS), Message.user(transcript(record))),
        options=CallOptions(
            temperature=0.0,
            max_output_tokens=max_output_tokens,
            response_format=Extraction.model_json_schema(),
        ),
        workflow_id=record.workflow_id,
    )
    response = await ai.call(request, context)
    return parse_extraction(response.text)


async def extract_workflow_facts(
    record: RunFacts,
    context: RequestContext,
    *,
    ai: AiService | None,
    mode: Mode,
    file_names: Sequence[tuple[str, str]],
    limit: int,
    max_output_tokens: int,
) -> list[Fact]:
    """At most `limit` facts, one per key: touched files first, then what the model or the
    rules found. `file_names` are (file id, name) of the touched files the caller may see."""
    if mode == "off" or not any(not result.is_error for result in record.tool_results):
        return []  # nothing happened that a later run could rely on
    found = [Fact("entity", f"file {file_id}", name) for file_id, name in file_names]
    extracted: list[Fact] | None = None
    if mode == "auto" and ai is not None:
        try:
            extracted = await facts_by_model(ai, record, context, max_output_tokens)
        except (AgenturError, ProviderError, ValueError, ValidationError) as error:
            # No model for this mandate, a provider failure or a reply that is not the JSON
            # asked for: the rules still remember the essentials.
            detail = getattr(error, "detail", None) or error
            logger.info("workflow facts by rules (extraction call failed: %s)", detail)
    if extracted is None:
        # Regular expressions over up to tens of kilobytes: off the event loop.
        extracted = await asyncio.to_thread(facts_by_rules, record)
    found += extracted
    unique: dict[str, Fact] = {}
    for fact in found:
        unique.setdefault(fact.key, fact)
    return list(unique.values())[:limit]

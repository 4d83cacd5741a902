"""What a model call is for; the selector picks models by it, the ledger records it.

Selection rules (agentur/ai/select_model.py): `embedding`, `web_search`, `speech_to_text`,
`text_to_speech` and `image_generate` need a model of that kind; `image_analyse` and
`neutralization_image` need vision; `plan` ranks reasoning models first and `data_extract`
models with structured output first (both still fall back to any chat model). `agent`,
`data_analyse` (summaries), `data_generate` (assistant replies) and `translate` are plain chat
calls — kept apart so the ledger reports costs per purpose. `meeting_reply` (the seed's
`speech_teams`) is the meeting assistant's fast path: one structured-output chat call per batch
of utterances, ranked like `data_extract` (structured output first).

`web_crawl` was removed: no model crawls — pages are fetched by `read_url` through the egress
checks, and what is taken from a page is an ordinary chat call."""

from __future__ import annotations

from enum import StrEnum


class OperationType(StrEnum):
    plan = "plan"
    data_analyse = "data_analyse"
    data_generate = "data_generate"
    data_extract = "data_extract"
    image_analyse = "image_analyse"
    image_generate = "image_generate"
    neutralization_text = "neutralization_text"
    neutralization_image = "neutralization_image"
    web_search = "web_search"
    translate = "translate"
    speech_to_text = "speech_to_text"
    text_to_speech = "text_to_speech"
    agent = "agent"
    embedding = "embedding"
    meeting_reply = "meeting_reply"

"""Perplexity (api.perplexity.ai): search-backed chat in the OpenAI format.

Quirks: no tools and no embeddings; roles must alternate after the system prompt (consecutive
messages of one role are merged); the sources come as top-level `search_results` /
`citations` and are appended to the answer as a numbered list, so callers keep them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.messages import AiRequest, Message, Source
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.openai_chat import OpenAIChatProvider
from agentur.ai.providers.tavily import days_ago
from agentur.ai.providers.vendor import Vendor, VendorSettings

PERPLEXITY_BASE_URL = "https://api.perplexity.ai"


def format_sources(body: dict[str, Any]) -> str:
    results = body.get("search_results")
    if isinstance(results, list) and results:
        lines = [
            f"[{number}] {item.get('title') or item.get('url')} — {item.get('url')}"
            for number, item in enumerate(results, start=1)
            if isinstance(item, dict)
        ]
    else:
        citations = body.get("citations")
        if not isinstance(citations, list) or not citations:
            return ""
        lines = [f"[{number}] {url}" for number, url in enumerate(citations, start=1)]
    return "\n\nSources:\n" + "\n".join(lines)


class PerplexityProvider(OpenAIChatProvider):
    name = "perplexity"
    default_base_url: ClassVar[str | None] = PERPLEXITY_BASE_URL
    send_stream_options: ClassVar[bool] = False
    supports_tools: ClassVar[bool] = False
    # Sonar takes a JSON schema but no `json_object` mode, no stop sequences and no seed.
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = frozenset(
        {"top_p", "presence_penalty", "frequency_penalty"}
    )

    def map_messages(
        self, messages: Sequence[Message], model: ModelSpec | None = None
    ) -> list[dict[str, Any]]:
        merged: list[dict[str, Any]] = []
        for message in messages:
            mapped = self.map_message(message)
            if merged and merged[-1]["role"] == mapped["role"]:
                merged[-1]["content"] = f"{merged[-1]['content']}\n\n{mapped['content']}"
            else:
                merged.append(mapped)
        return merged

    def extra_text(self, body: dict[str, Any]) -> str:
        return format_sources(body)

    def sources(self, body: dict[str, Any]) -> tuple[Source, ...]:
        results = body.get("search_results")
        if isinstance(results, list) and results:
            return tuple(
                Source(
                    url=str(item["url"]),
                    title=str(item.get("title") or ""),
                    snippet=str(item.get("snippet") or "").strip(),
                    published=item.get("date") or None,
                )
                for item in results
                if isinstance(item, dict) and item.get("url")
            )
        citations = body.get("citations")
        if isinstance(citations, list):
            return tuple(Source(url=str(url)) for url in citations if isinstance(url, str))
        return ()

    def extra_payload(self, request: AiRequest) -> dict[str, Any]:
        search = request.options.search
        if search is None or not search.recency_days:
            return {}
        after = days_ago(search.recency_days)
        # Perplexity wants "%m/%d/%Y" without leading zeros ("3/1/2025").
        return {"search_after_date_filter": f"{after.month}/{after.day}/{after.year}"}


class PerplexitySettings(VendorSettings):
    perplexity_api_key: str | None = Field(default=None, description="Perplexity API key.")
    perplexity_base_url: str | None = Field(
        default=None, description="Perplexity base URL override."
    )


VENDOR = Vendor(PerplexitySettings, PerplexityProvider)

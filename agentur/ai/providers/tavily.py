"""Tavily web search (`POST {base}/search`, Bearer key) as the `web_search` operation.

The query is the last user message (Tavily caps queries at 400 characters); the answer is
Tavily's short answer, if any, followed by the numbered results (title, URL, extract), so a
caller or agent can cite them. A model name containing "advanced" selects the deeper (and
dearer) search. Tavily bills per search, not per token: the registry prices each search per
request (`model_catalog.REQUEST_PRICES_USD`); the usage is an estimate of the text in and out,
recorded for the ledger but not billed.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    Role,
    Source,
    Usage,
)
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, model_reply
from agentur.ai.providers.http_transport import HttpProvider
from agentur.ai.providers.scripted import estimate_tokens
from agentur.ai.providers.vendor import Vendor, VendorSettings

TAVILY_BASE_URL = "https://api.tavily.com"
MAX_QUERY_CHARS = 400


def days_ago(days: int, today: date | None = None) -> date:
    return (today or datetime.now(UTC).date()) - timedelta(days=days)


def sources_of(body: dict[str, Any]) -> tuple[Source, ...]:
    return tuple(
        Source(
            url=str(result["url"]),
            title=str(result.get("title") or ""),
            snippet=str(result.get("content") or "").strip(),
            published=result.get("published_date") or None,
        )
        for result in body.get("results") or []
        if isinstance(result, dict) and result.get("url")
    )


def format_results(body: dict[str, Any]) -> str:
    lines: list[str] = []
    if body.get("answer"):
        lines += [str(body["answer"]).strip(), ""]
    for number, result in enumerate(body.get("results") or [], start=1):
        lines.append(f"[{number}] {result.get('title') or result.get('url')}")
        lines.append(str(result.get("url", "")))
        if result.get("content"):
            lines.append(str(result["content"]).strip())
        lines.append("")
    return "\n".join(lines).strip() or "No results."


class TavilyProvider(HttpProvider):
    name: str = "tavily"
    default_base_url: ClassVar[str | None] = TAVILY_BASE_URL

    def __init__(self, *, max_results: int = 5, **options: Any) -> None:
        super().__init__(**options)
        self.max_results = max_results

    def build_payload(self, model: ModelSpec, request: AiRequest) -> dict[str, Any]:
        query = next(
            (m.content for m in reversed(request.messages) if m.role == Role.user and m.content),
            "",
        ).strip()
        if not query:
            raise self.transport.fail(
                ErrorKind.bad_request, "no user message to search for", model=model.name
            )
        search = request.options.search
        payload: dict[str, Any] = {
            "query": query[:MAX_QUERY_CHARS],
            "max_results": (search.max_results if search else None) or self.max_results,
            "search_depth": "advanced" if "advanced" in model.name else "basic",
            "include_answer": True,
        }
        if search and search.recency_days:
            payload["start_date"] = days_ago(search.recency_days).isoformat()
        return payload

    async def search(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        started = time.perf_counter()
        payload = self.build_payload(model, request)
        body = await self.transport.post_json("/search", payload, model=model.name)
        body = body if isinstance(body, dict) else {}
        text = format_results(body)
        usage = Usage(estimate_tokens(payload["query"]), estimate_tokens(text))
        return model_reply(self.name, model, started, text, usage, sources=sources_of(body))


class TavilySettings(VendorSettings):
    tavily_api_key: str | None = Field(default=None, description="Tavily (web search) API key.")
    tavily_base_url: str | None = Field(default=None, description="Tavily base URL override.")


VENDOR = Vendor(TavilySettings, TavilyProvider)

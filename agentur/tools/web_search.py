"""`web_search`: results from the configured search engine (Tavily or Perplexity) through
the gateway's `web_search` operation — selected, neutralized and billed like every model call."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.ai.messages import Message, SearchOptions
from agentur.ai.operation_types import OperationType
from agentur.tools.gateway_call import ask_model
from agentur.tools.tool import Tool, ToolContext

MISSING = (
    "no web search provider is configured; set AGENTUR_TAVILY_API_KEY or AGENTUR_PERPLEXITY_API_KEY"
)


class WebSearchArguments(BaseModel):
    query: str = Field(min_length=1, max_length=400, description="What to search for.")
    max_results: int = Field(default=5, ge=1, le=20, description="Results to return.")
    recency_days: int | None = Field(
        default=None, ge=1, le=3650, description="Only results published in the last N days."
    )


async def web_search(args: WebSearchArguments, context: ToolContext) -> dict[str, Any]:
    search = SearchOptions(args.max_results, args.recency_days)
    query = Message.user(args.query)
    response = await ask_model(context, OperationType.web_search, [query], MISSING, search=search)
    results = [
        {
            "title": source.title,
            "url": source.url,
            "snippet": source.snippet,
            "published": source.published,
        }
        for source in response.sources[: args.max_results]
    ]
    found: dict[str, Any] = {"query": args.query, "engine": response.model, "results": results}
    if not results:
        found["answer"] = response.text  # an engine that cites nothing still said something
    return found


TOOLS = [
    Tool(
        name="web_search",
        description="Search the web. Returns title, URL, snippet and publication date (when "
        "known) per result; read a result with read_url.",
        arguments=WebSearchArguments,
        handler=web_search,
        read_only=True,
        toolbox="web",
    )
]

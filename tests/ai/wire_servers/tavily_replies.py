"""Replies in the Tavily `/search` wire format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.ai.wire_servers.server import Reply


def tavily_results(
    results: Sequence[tuple[str, str, str] | tuple[str, str, str, str]],
    *,
    answer: str | None = None,
    query: str = "",
) -> Reply:
    """`results`: (title, url, content) triples, or with a fourth `published_date`."""
    body: dict[str, Any] = {
        "query": query,
        "answer": answer,
        "results": [_result(*result) for result in results],
        "response_time": 0.5,
    }
    return Reply.json(body)


def _result(title: str, url: str, content: str, published: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"title": title, "url": url, "content": content, "score": 0.9}
    if published is not None:
        result["published_date"] = published
    return result


def tavily_error(status: int, detail: str) -> Reply:
    return Reply.json({"detail": {"error": detail}}, status=status)

"""Replies in the Tavily `/search` wire format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.ai.wire_servers.server import Reply


def tavily_results(
    results: Sequence[tuple[str, str, str]], *, answer: str | None = None, query: str = ""
) -> Reply:
    """`results`: (title, url, content) triples."""
    body: dict[str, Any] = {
        "query": query,
        "answer": answer,
        "results": [
            {"title": title, "url": url, "content": content, "score": 0.9}
            for title, url, content in results
        ],
        "response_time": 0.5,
    }
    return Reply.json(body)


def tavily_error(status: int, detail: str) -> Reply:
    return Reply.json({"detail": {"error": detail}}, status=status)

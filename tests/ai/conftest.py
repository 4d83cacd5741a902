"""Fixtures for the AI gateway tests: one wire-format HTTP server per provider (fresh per test).

Each `base_url` follows the vendor's base-URL convention (see `agentur.ai.providers.*`):
OpenAI and Mistral end in `/v1`; Anthropic, Google, Perplexity and Tavily are the bare host.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ai.wire_servers import WireServer


def _serve(name: str, base_path: str = "") -> Iterator[WireServer]:
    with WireServer(name, base_path) as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[WireServer]:
    """OpenAI chat completions / embeddings (also fits any OpenAI-compatible server)."""
    yield from _serve("openai", "/v1")


@pytest.fixture
def mistral_server() -> Iterator[WireServer]:
    yield from _serve("mistral", "/v1")


@pytest.fixture
def perplexity_server() -> Iterator[WireServer]:
    yield from _serve("perplexity")


@pytest.fixture
def anthropic_server() -> Iterator[WireServer]:
    yield from _serve("anthropic")


@pytest.fixture
def google_server() -> Iterator[WireServer]:
    yield from _serve("google")


@pytest.fixture
def tavily_server() -> Iterator[WireServer]:
    yield from _serve("tavily")

"""One real llama-server (with the 0.5B model) for the whole slow tier; skipped with the
reason where no model or no runnable server is installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.real_servers.llama_server import Unavailable, model_path, running_llama_server


@pytest.fixture(scope="session")
def llama_server() -> Iterator[str]:
    try:
        with running_llama_server(model_path()) as base_url:
            yield base_url
    except Unavailable as why:
        pytest.skip(str(why))

"""web_search set up exactly as the README documents it: the engine's API key and its base-URL
override (pointing at a local server in the vendor's wire format) and nothing else — no price,
no flag. Each search is billed per request: one ledger row with the vendor's price per search
(plus tokens where the vendor bills them too), held before the call like every model call."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from agentur.ai.mandate_ai_settings import update_mandate_ai_settings
from agentur.ai.messages import ToolCall
from agentur.config import Settings
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.tools.web_search import TOOLS
from tests.ai.wire_servers import Reply, WireServer, openai_message, tavily_results
from tests.conftest import Tenants

HITS = [("Glacier report", "https://news.example/glacier", "Ice lost.")]


@dataclass(frozen=True)
class Engine:
    name: str
    reply: Reply
    model: str
    cost_usd: float  # of the one search each test makes


ENGINES = {
    # Tavily: 1 credit at $0.008 per basic search; the tokens it reports are estimates, free
    "tavily": Engine("tavily", tavily_results(HITS), "tavily:search", 0.008),
    # Perplexity sonar-pro (ranked first on quality): $3 and $15 per million tokens in and
    # out, plus $6 per 1,000 requests
    "perplexity": Engine(
        "perplexity",
        openai_message(
            "Glaciers shrink [1].",
            input_tokens=200,
            output_tokens=300,
            extra={"search_results": [{"title": t, "url": u, "snippet": s} for t, u, s in HITS]},
        ),
        "perplexity:sonar-pro",
        (200 * 3 + 300 * 15) / 1_000_000 + 0.006,
    ),
}


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Engine:
    return ENGINES[request.param]


@pytest.fixture
def engine_server(engine: Engine) -> Iterator[WireServer]:
    with WireServer(engine.name) as server:
        yield server


@pytest.fixture
def more_settings() -> dict[str, str]:
    """Further documented settings a test adds."""
    return {}


@pytest.fixture
async def runtime(
    settings: Settings,
    engine: Engine,
    engine_server: WireServer,
    more_settings: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Runtime]:
    """The runtime `agentur serve` builds, with only the README's settings in the environment."""
    for name in list(os.environ):
        if name.startswith("AGENTUR_") and not name.startswith("AGENTUR_TEST_"):
            monkeypatch.delenv(name)
    prefix = f"AGENTUR_{engine.name.upper()}"
    monkeypatch.setenv(f"{prefix}_API_KEY", "key-from-the-vendor")
    monkeypatch.setenv(f"{prefix}_BASE_URL", engine_server.base_url)
    for name, value in more_settings.items():
        monkeypatch.setenv(name, value)
    runtime = Runtime.from_settings(settings)
    try:
        yield runtime
    finally:
        await runtime.close()


async def search(runtime: Runtime, context_of: Tenants, mandate: str) -> tuple[bool, str]:
    member = await context_of.member(mandate)
    outcome = await run_tool(
        TOOLS[0],
        ToolCall("s1", "web_search", {"query": "glacier news"}),
        ToolContext(request=member.context, runtime=runtime),
        ToolLimits(),
        lambda _: None,
    )
    return outcome.is_error, outcome.content


async def ledger(runtime: Runtime) -> list[AiLedgerEntry]:
    async with runtime.database.session() as session:
        return list((await session.execute(select(AiLedgerEntry))).scalars().all())


async def billed_search(
    runtime: Runtime, tenants: Tenants, engine: Engine, server: WireServer
) -> tuple[dict, AiLedgerEntry]:
    """One search that succeeds: what the tool answered, and the one ledger row."""
    server.enqueue(engine.reply)
    failed, content = await search(runtime, tenants, "acme")
    assert not failed, content
    [row] = await ledger(runtime)
    return json.loads(content), row


async def set_balance(runtime: Runtime, tenants: Tenants, chf: float) -> None:
    async with runtime.database.transaction() as session:
        await update_mandate_ai_settings(
            session, tenants.mandate_id("acme"), {"balance_chf": round(chf, 6)}
        )


async def test_a_search_is_billed_per_request(
    runtime: Runtime, tenants: Tenants, engine: Engine, engine_server: WireServer
) -> None:
    found, row = await billed_search(runtime, tenants, engine, engine_server)
    assert found["engine"] == engine.model
    assert [hit["url"] for hit in found["results"]] == ["https://news.example/glacier"]
    assert engine_server.last.headers["authorization"] == "Bearer key-from-the-vendor"
    rate = runtime.ai.usd_to_chf
    assert (row.operation, row.model, row.mandate_id) == (
        "web_search",
        engine.model,
        tenants.mandate_id("acme"),
    )
    assert row.cost_usd == pytest.approx(engine.cost_usd)
    assert row.cost_chf == pytest.approx(engine.cost_usd * rate)
    assert row.usd_to_chf == rate


@pytest.mark.parametrize("engine", ["tavily"], indirect=True)
async def test_the_price_per_search_is_held_before_the_call(
    runtime: Runtime, tenants: Tenants, engine: Engine, engine_server: WireServer
) -> None:
    """A balance a hair below one search's price refuses the search before Tavily is asked
    (its tokens are free, so only the price per request can be what does not fit); a balance
    a hair above lets it through and the search is deducted."""
    fee_chf = engine.cost_usd * runtime.ai.usd_to_chf
    await tenants.member("acme")
    await set_balance(runtime, tenants, fee_chf * 0.99)
    failed, content = await search(runtime, tenants, "acme")
    assert failed and "balance" in content, content
    assert engine_server.received == [] and await ledger(runtime) == []

    await set_balance(runtime, tenants, fee_chf * 1.01)
    _, row = await billed_search(runtime, tenants, engine, engine_server)
    assert row.cost_chf == pytest.approx(fee_chf)


@pytest.mark.parametrize("engine", ["tavily"], indirect=True)
@pytest.mark.parametrize(
    "more_settings", [{"AGENTUR_MODEL_PRICES": '{"tavily:search": {"request": 0.005}}'}]
)
async def test_a_plan_with_another_price_per_search_is_set_in_model_prices(
    runtime: Runtime, tenants: Tenants, engine: Engine, engine_server: WireServer
) -> None:
    _, row = await billed_search(runtime, tenants, engine, engine_server)
    assert row.cost_usd == pytest.approx(0.005)

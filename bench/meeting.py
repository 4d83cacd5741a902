"""Meeting assistant: fast-path latency and cost per hour of meeting.

A meeting session on SQLite is fed utterances one at a time over the API (in-process ASGI);
its fast path (`meeting_reply`) calls an OpenAI-compatible wire-format model that answers after
100 ms. Every second utterance is a question to the assistant (it answers), the others are
remarks (it stays silent). Printed:

- latency from the transcript POST to the `reply` event, p50 / p99 (questions only);
- the fast path's cost per call (prompt tokens as the wire model counts them, ~4 characters a
  token, at the stated price) and per hour of meeting at the stated utterance rate. Agent
  escalations are extra (each at most `AGENTUR_MEETING_AGENT_MAX_COST_CHF`).

    python bench/meeting.py [--utterances 400] [--per-minute 10] [--latency 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentur.accounts import directory  # noqa: E402
from agentur.accounts.api_keys import issue_api_key  # noqa: E402
from agentur.ai.model_spec import Capability, ModelSpec  # noqa: E402
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.api.app import create_app  # noqa: E402
from agentur.config import Settings  # noqa: E402
from agentur.context import Role  # noqa: E402
from agentur.runtime import Runtime  # noqa: E402
from tests.ai.wire_servers import WireServer, openai_text  # noqa: E402
from tests.ai.wire_servers.server import ReceivedRequest, Reply  # noqa: E402

# A small fast model's list price (gpt-4o-mini class), USD per million tokens.
INPUT_USD, OUTPUT_USD = 0.15, 0.60
REMARKS = [
    "Ich habe die Zahlen vom letzten Quartal nochmals durchgesehen.",
    "Das Deployment am Dienstag lief ohne Probleme.",
    "Wir sollten das Thema nächste Woche nochmals aufnehmen.",
    "Der Kunde hat die Offerte gestern bestätigt.",
]
QUESTIONS = [
    "Agentur, wie viele Tage hat der Februar in einem Schaltjahr?",
    "Agentur, was ist die Hauptstadt von Kanada?",
    "Agentur, wie viel sind 17 mal 23?",
]


def tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def fast_path_model(latency: float):  # noqa: ANN201
    def answer(request: ReceivedRequest) -> Reply:
        body = request.json or {}
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        said = prompt.split("JUST SAID:")[-1]
        question = "?" in said
        reply = {
            "respond": question,
            "text": "Das sind 29 Tage." if question else "",
            "needs_agent": False,
            "agent_reason": "",
        }
        text = json.dumps(reply, ensure_ascii=False)
        return openai_text(text, input_tokens=tokens(prompt), output_tokens=tokens(text)).delayed(
            latency
        )

    return answer


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp, WireServer("model", "/v1") as server:
        server.default_reply = fast_path_model(args.latency)
        settings = Settings(data_dir=Path(tmp) / "data")
        runtime = Runtime.from_settings(settings)
        await runtime.migrate()
        model = ModelSpec(
            provider="openai_compatible",
            name="wire-model",
            capabilities=frozenset({Capability.structured_output, Capability.tools}),
            input_price_usd_per_mtok=INPUT_USD,
            output_price_usd_per_mtok=OUTPUT_USD,
        )
        provider = OpenAICompatibleProvider(base_url=server.base_url, models=[model])
        runtime.ai = AiService([provider], settings=AiSettings())
        async with runtime.database.transaction() as session:
            mandate = await directory.create_mandate(session, "bench")
            user = await directory.create_user(session, "bench@bench.test")
            await directory.add_membership(
                session, user_id=user.id, mandate_id=mandate.id, role=Role.member
            )
            key = (await issue_api_key(session, user_id=user.id, mandate_id=mandate.id)).plaintext
        app = create_app(runtime=runtime)
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {key}"}
        try:
            async with httpx.AsyncClient(
                transport=transport, base_url="http://bench", headers=headers
            ) as client:
                await measure(client, app, args)
        finally:
            await provider.aclose()
            if hasattr(app.state, "meetings"):
                await app.state.meetings.close()
            await runtime.close()


async def measure(client: httpx.AsyncClient, app: object, args: argparse.Namespace) -> None:
    created = await client.post(
        "/v1/meetings", json={"wake_name": "Agentur", "languages": ["de"], "budget_chf": 100.0}
    )
    created.raise_for_status()
    session_id = created.json()["id"]
    live = app.state.meetings.held(session_id)  # type: ignore[attr-defined]
    latencies: list[float] = []
    arrivals: list[float] = []

    async def listen() -> None:
        async for event in live.hub.listen(
            live.hub.recent()[-1].sequence if live.hub.recent() else 0
        ):
            if event.type.value == "reply":
                arrivals.append(time.perf_counter())

    listener = asyncio.create_task(listen())
    calls_before = live.fast_calls
    started = time.perf_counter()
    for n in range(args.utterances):
        question = n % 2 == 1
        text = QUESTIONS[n % len(QUESTIONS)] if question else REMARKS[n % len(REMARKS)]
        replies_before = len(arrivals)
        sent = time.perf_counter()
        answer = await client.post(
            f"/v1/meetings/{session_id}/transcript",
            json={"utterances": [{"speaker": f"P{n % 4}", "text": text}]},
        )
        answer.raise_for_status()
        await live.idle()
        await asyncio.sleep(0)  # the listener takes the reply event
        if question:
            assert len(arrivals) == replies_before + 1, "a question went unanswered"
            latencies.append((arrivals[-1] - sent) * 1000)
    wall = time.perf_counter() - started
    calls = live.fast_calls - calls_before
    meeting = (await client.get(f"/v1/meetings/{session_id}")).json()
    per_call = meeting["spent_chf"] / calls
    per_hour = per_call * args.per_minute * 60
    quantiles = statistics.quantiles(latencies, n=100)
    print(f"utterances {args.utterances}, fast-path calls {calls}, wall {wall:.1f} s")
    print(f"model latency {args.latency * 1000:.0f} ms; load {os.getloadavg()[0]:.2f}")
    print(
        f"fast path, transcript POST -> reply event: p50 {statistics.median(latencies):.0f} ms, "
        f"p99 {quantiles[98]:.0f} ms ({len(latencies)} questions)"
    )
    print(
        f"cost per fast-path call CHF {per_call:.6f} (USD {INPUT_USD}/{OUTPUT_USD} per Mtok, "
        f"window up to 30 utterances); per hour at {args.per_minute} utterances/min: "
        f"CHF {per_hour:.3f}"
    )
    await client.delete(f"/v1/meetings/{session_id}")
    listener.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--utterances", type=int, default=400)
    parser.add_argument("--per-minute", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.1, help="Model latency, seconds.")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

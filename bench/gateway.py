"""Gateway overhead and neutralizer throughput (prints figures; asserts nothing).

    python bench/gateway.py [--calls 300]

1. Added latency of one chat call through `AiService` versus the same httpx client posting to
   the same local OpenAI-compatible server directly: p50/p99, neutralization off and on, with
   the gateway state in memory and in a migrated SQLite database (ledger row per call).
2. Neutralizer throughput in KB/s on the PII corpus of the tests.
Target: <= 2 ms added at p50 with neutralization off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.ai.database_gateway_store import DatabaseGatewayStore  # noqa: E402
from agentur.ai.gateway_store import MemoryGatewayStore  # noqa: E402
from agentur.ai.mandate_ai_settings import (  # noqa: E402
    MandateAiConfig,
    update_mandate_ai_settings,
)
from agentur.ai.messages import AiRequest, Message  # noqa: E402
from agentur.ai.neutralization.mapping_cipher import MappingCipher  # noqa: E402
from agentur.ai.neutralization.neutralizer import Neutralizer  # noqa: E402
from agentur.ai.neutralization.placeholder_map import PlaceholderMap  # noqa: E402
from agentur.ai.neutralization.recognizers.phone import _numbers_in  # noqa: E402
from agentur.ai.operation_types import OperationType  # noqa: E402
from agentur.ai.provider_factory import openai_compatible_specs  # noqa: E402
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider  # noqa: E402
from agentur.ai.providers.openai_compatible_settings import (  # noqa: E402
    OpenAICompatibleServerSettings,
)
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings, NeutralizationPolicy  # noqa: E402
from agentur.context import RequestContext, Role  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.migrate import upgrade_database  # noqa: E402
from tests.ai.neutralization.pii_corpus import corpus_text  # noqa: E402

REPLY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "model": "bench",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21},
    }
).encode()
PROMPT = "Summarize the quarterly figures for the board in three sentences, please."
PII_PROMPT = PROMPT + " Contact hans.muster@example.ch or +41 44 668 18 00."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Without this, Nagle + delayed ACK add ~40 ms to every reply and hide the overhead.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)

    def log_message(self, *args: object) -> None:
        pass


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def direct(client: httpx.AsyncClient, base: str, calls: int) -> list[float]:
    body = {"model": "bench", "messages": [{"role": "user", "content": PROMPT}]}
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        reply = await client.post(base + "/chat/completions", json=body)
        reply.json()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def through_gateway(
    ai: AiService, prompt: str, calls: int, workflow: bool
) -> tuple[list[float], float]:
    """Wall-clock samples (ms) and the process CPU time per call (ms, all threads): the CPU
    figure is steadier than wall time on a shared machine."""
    context = RequestContext("bench-user", "bench-mandate", Role.member)
    request = AiRequest(
        OperationType.agent,
        (Message.user(prompt),),
        workflow_id="bench-wf" if workflow else None,
    )
    samples = []
    cpu_started = time.process_time()
    for _ in range(calls):
        started = time.perf_counter()
        await ai.call(request, context)
        samples.append((time.perf_counter() - started) * 1000)
    return samples, (time.process_time() - cpu_started) * 1000 / max(calls, 1)


async def set_policy(store: MemoryGatewayStore | DatabaseGatewayStore, policy: str) -> None:
    """The mandate's policy the way an admin sets it, so the database store runs its real
    settings read and `mandate_settings_cache_seconds` cache."""
    if isinstance(store, MemoryGatewayStore):
        store.configs["bench-mandate"] = MandateAiConfig(NeutralizationPolicy(policy))
        return
    async with store.database.transaction() as session:
        await update_mandate_ai_settings(
            session, "bench-mandate", {"neutralization_policy": policy}
        )
    store.forget_mandate_config("bench-mandate")


async def sqlite_store(settings: AiSettings, folder: Path) -> DatabaseGatewayStore:
    database = Database(f"sqlite+aiosqlite:///{folder / 'bench.db'}")
    await upgrade_database(database.engine)
    from agentur.storage.models import Mandate

    async with database.transaction() as session:
        session.add(Mandate(id="bench-mandate", name="bench"))
    return DatabaseGatewayStore(database, settings, MappingCipher.generated())


async def main(calls: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    settings = AiSettings()
    local = OpenAICompatibleServerSettings(
        openai_compatible_base_url=base, openai_compatible_models="bench"
    )
    async with httpx.AsyncClient() as client:
        provider = OpenAICompatibleProvider(
            models=openai_compatible_specs(local, ["bench"]), base_url=base, client=client
        )
        await direct(client, base, 50)  # warm up the connection and code paths
        cpu_started = time.process_time()
        baseline = await direct(client, base, calls)
        b_cpu = (time.process_time() - cpu_started) * 1000 / calls
        b50, b99 = percentiles(baseline)
        print(f"direct httpx              p50 {b50:7.3f} ms   p99 {b99:7.3f} ms   cpu {b_cpu:.3f}")
        with tempfile.TemporaryDirectory() as folder:
            stores = {
                "memory": MemoryGatewayStore(settings),
                "sqlite": await sqlite_store(settings, Path(folder)),
            }
            for store_name, store in stores.items():
                for policy in (NeutralizationPolicy.off, NeutralizationPolicy.neutralize):
                    ai = AiService([provider], settings=settings, store=store)
                    await set_policy(store, policy.value)
                    prompt = PII_PROMPT if policy is NeutralizationPolicy.neutralize else PROMPT
                    workflow = policy is NeutralizationPolicy.neutralize
                    await through_gateway(ai, prompt, 30, workflow)
                    samples, cpu = await through_gateway(ai, prompt, calls, workflow)
                    p50, p99 = percentiles(samples)
                    print(
                        f"gateway {store_name:6} {policy.value:10} p50 {p50:7.3f} ms "
                        f"(+{p50 - b50:6.3f})   p99 {p99:7.3f} ms (+{p99 - b99:6.3f})   "
                        f"cpu {cpu:.3f} (+{cpu - b_cpu:.3f})"
                    )
    server.shutdown()

    text = corpus_text()
    neutralizer = Neutralizer()
    rounds = 20
    # Cold: a fresh recognizer cache per round (first sight of every number).
    seconds = 0.0
    for _ in range(rounds):
        _numbers_in.cache_clear()
        started = time.perf_counter()
        neutralizer.neutralize(text, PlaceholderMap())
        seconds += time.perf_counter() - started
    kilobytes = len(text.encode()) * rounds / 1024
    print(f"neutralizer throughput {kilobytes / seconds:8.1f} KB/s on the PII corpus (cold)")
    started = time.perf_counter()
    for _ in range(rounds):
        neutralizer.neutralize(text, PlaceholderMap())
    seconds = time.perf_counter() - started
    print(
        f"neutralizer throughput {kilobytes / seconds:8.1f} KB/s on the PII corpus "
        "(warm: history re-sent in later rounds)"
    )
    plain = "The board met on Tuesday and discussed the budget for next year. " * 400
    started = time.perf_counter()
    for _ in range(rounds):
        neutralizer.neutralize(plain, PlaceholderMap())
    seconds = time.perf_counter() - started
    print(
        f"neutralizer throughput {len(plain) * rounds / 1024 / seconds:8.1f} KB/s "
        "on prose without PII"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))

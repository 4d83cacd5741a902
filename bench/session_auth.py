"""What a web app request pays for its session cookie. Prints figures, asserts nothing.

    python bench/session_auth.py [--requests 2000] [--keys 1]

The app in this process (httpx's ASGI transport, no network) over SQLite in a temporary
folder. Times `GET /v1/me` (authentication + the request context, nothing else) with the
bearer key and with the session cookie, alternating in rounds of 100 so machine load hits
both alike. The cookie path re-checks every key of the session on every request (one joined
query after the session lookup); `--keys` signs that many mandates' keys into the session.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from agentur.accounts import directory
from agentur.accounts.api_keys import issue_api_key
from agentur.api.app import create_app
from agentur.config import Settings
from agentur.context import Role
from agentur.runtime import Runtime

ROUND = 100


async def member_key(runtime: Runtime, user_id: str, mandate: str) -> str:
    async with runtime.database.transaction() as db:
        mandate_id = (await directory.create_mandate(db, mandate)).id
        await directory.add_membership(db, user_id=user_id, mandate_id=mandate_id, role=Role.member)
        return (await issue_api_key(db, user_id=user_id, mandate_id=mandate_id)).plaintext


async def timed(client: httpx.AsyncClient, headers: dict[str, str], count: int) -> list[float]:
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        response = await client.get("/v1/me", headers=headers)
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    return timings


async def main(requests: int, keys: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        runtime = Runtime.from_settings(Settings(data_dir=Path(folder), log_level="WARNING"))
        await runtime.migrate()
        async with runtime.database.transaction() as db:
            user_id = (await directory.create_user(db, "bench@example.test")).id
        plain = [await member_key(runtime, user_id, f"mandate {n}") for n in range(keys)]
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench.test") as web:
            signed = await web.post("/v1/sessions", json={"api_key": plain[0]})
            assert signed.status_code == 201, signed.text
            csrf = {"X-CSRF-Token": signed.json()["csrf_token"]}
            for key in plain[1:]:
                await web.post("/v1/sessions/current/keys", json={"api_key": key}, headers=csrf)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench.test") as api:
                bearer = {"Authorization": f"Bearer {plain[0]}"}
                await timed(api, bearer, ROUND)  # warm-up
                await timed(web, {}, ROUND)
                results: dict[str, list[float]] = {"bearer": [], "cookie": []}
                for _ in range(max(1, requests // ROUND)):
                    results["bearer"] += await timed(api, bearer, ROUND)
                    results["cookie"] += await timed(web, {}, ROUND)
        await runtime.close()
    print(f"GET /v1/me, {len(results['bearer'])} requests each, session with {keys} key(s)")
    for name, timings in results.items():
        ordered = sorted(timings)
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        print(
            f"  {name:6}: mean {statistics.mean(timings) * 1000:.2f} ms, "
            f"median {statistics.median(timings) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"
        )
    print(f"load average: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--keys", type=int, default=1)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.requests, arguments.keys))

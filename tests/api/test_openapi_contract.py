"""The OpenAPI contract, checked by schemathesis against a real `agentur` server (SQLite).

The run is what `schemathesis run --checks all` does (examples, coverage, fuzzing and stateful
phases; every check), with bounded examples and a fixed seed, through schemathesis's Python
engine. A schema-valid request must be accepted, a schema-invalid one refused, every status,
content type and body must be the documented one, and nothing may answer 5xx.

Generating the cases takes most of the time, in the client (about 120 s of CPU against the
server's 40 s when one process ran it all), and schemathesis's worker threads share one
interpreter. So the operations are split in two halves of about equal weight (the size of
each operation's resolved document), run by this process and a second one at once (134 s
instead of 172 s here; eight groups taken in turn by two worker processes took 158 s: each
loads the document again); the stateful phase, which links operations across both halves,
runs alone afterwards.

Cross-field rules JSON Schema cannot state are taught to the generator by the hooks in
`contract_hooks.py`, never by excluding a check or an operation.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema

from agentur.config import Settings
from agentur.context import Role
from agentur.runtime import Runtime
from tests.api import contract_hooks  # noqa: F401  (registers the generator's hooks)
from tests.api.serve_process import serve
from tests.conftest import Tenants

pytestmark = pytest.mark.slow

MAX_EXAMPLES = 10
SEED = 20261201
REJECTED = [
    "400",
    "401",
    "403",
    "404",
    "405",
    "406",
    "409",
    "413",
    "415",
    "422",
    "428",
    "429",
    "5xx",
]
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "413", "429", "5xx"]
UNIT_PHASES = ["examples", "coverage", "fuzzing"]
HTTP_METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}


async def _admin_key(data_dir: Path) -> str:
    runtime = Runtime.from_settings(Settings(data_dir=data_dir, database_url=None))
    try:
        return (await Tenants(runtime).member(role=Role.admin)).key
    finally:
        await runtime.close()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`agentur serve` on SQLite in its own process, and a key of a mandate's admin (a member
    who may also use the admin routes)."""
    # Background indexing is not part of the contract and would only take CPU from the run.
    data_dir = tmp_path_factory.mktemp("contract") / "data"
    with serve(data_dir, knowledge_worker_enabled="0") as served:
        yield served.url, asyncio.run(_admin_key(served.data_dir))


def _failures(stream: Any) -> list[str]:
    found = []
    for event in stream:
        if isinstance(event, events.ScenarioFinished):
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.status == Status.FAILURE:
                        info = check.failure_info
                        what = f"{info.failure.title}\n  {info.code_sample}" if info else ""
                        found.append(f"{event.recorder.label}: {check.name}: {what}")
        elif isinstance(event, events.NonFatalError | events.FatalError):
            found.append(f"error: {getattr(event, 'label', '')}: {event.info.message}")
    return sorted(set(found))


def _resolved(value: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """`value` with its `$ref`s replaced by what they name (down to a few levels)."""
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/") and depth < 6:
            kind, name = ref.removeprefix("#/components/").split("/", 1)
            return _resolved(components.get(kind, {}).get(name, {}), components, depth + 1)
        return {key: _resolved(item, components, depth) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item, components, depth) for item in value]
    return value


def split_operations(document: dict[str, Any], parts: int) -> list[list[str]]:
    """The document's operations ("POST /v1/files") in `parts` groups of about equal weight:
    the heaviest first, each into the lightest group so far."""
    components = document.get("components", {})
    weights = {
        f"{method.upper()} {path}": len(json.dumps(_resolved(operation, components)))
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    }
    groups: list[list[str]] = [[] for _ in range(parts)]
    loads = [0] * parts
    for name in sorted(weights, key=lambda n: (-weights[n], n)):
        lightest = loads.index(min(loads))
        groups[lightest].append(name)
        loads[lightest] += weights[name]
    return groups


def run_contract(url: str, key: str, operations: list[str] | None, phases: list[str]) -> list[str]:
    """Failures of these operations (None: all) in these phases; also the second process's
    job."""
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "headers": {"Authorization": f"Bearer {key}"},
            "generation": {"max-examples": MAX_EXAMPLES},
            "phases": {name: {"enabled": name in phases} for name in [*UNIT_PHASES, "stateful"]},
            "checks": {
                "enabled": True,
                # A body over the route's byte limit is refused with 413, before it is read;
                # JSON Schema cannot state a size in bytes, so the document states it in each
                # operation's 413 answer. A 413 is the documented answer to such a body,
                # valid or not (schemathesis's default statuses plus 413).
                "negative_data_rejection": {"expected-statuses": REJECTED},
                "positive_data_acceptance": {"expected-statuses": ACCEPTED},
            },
            "workers": 1,
            "request-timeout": 30,
            # No state kept between runs (and no .schemathesis/ folder in the work tree).
            "cache": {"enabled": False},
        }
    )
    # The first GET builds the document; 60 s, not requests' 10, for a machine under load.
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json", config=config, timeout=60)
    if operations is not None:
        schema = schema.include(name=operations)
    return _failures(from_schema(schema).execute())


def test_the_halves_hold_every_operation_once() -> None:
    document = {
        "paths": {
            "/a": {"get": {"x": 1}, "post": {"$ref": "#/components/schemas/Big"}},
            "/b": {"delete": {}, "parameters": []},
        },
        "components": {"schemas": {"Big": {"properties": {str(n): {} for n in range(50)}}}},
    }
    halves = split_operations(document, 2)
    assert sorted(sum(halves, [])) == ["DELETE /b", "GET /a", "POST /a"]
    assert halves[0] == ["POST /a"]  # the resolved reference makes it the heaviest


def test_every_operation_keeps_the_openapi_contract(live_server: tuple[str, str]) -> None:
    url, key = live_server
    document = httpx.get(f"{url}/openapi.json", timeout=60).raise_for_status().json()
    mine, theirs = split_operations(document, 2)
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as other:
        second = other.submit(run_contract, url, key, theirs, UNIT_PHASES)
        failures = run_contract(url, key, mine, UNIT_PHASES) + second.result()
    failures += run_contract(url, key, None, ["stateful"])
    assert failures == [], "\n".join(sorted(set(failures)))

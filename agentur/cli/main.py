"""`agentur` — serve the API and administer users, mandates and keys.

Errors print one line to stderr and exit with status 1.
"""

# Commands import what they need inside their function: `agentur --help` then loads typer and
# little else (tests/cli/test_cli_help.py keeps it so).

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from agentur.context import Role
from agentur.errors import AgenturError

if TYPE_CHECKING:
    from agentur.runtime import Runtime
    from agentur.settings import AllSettings

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
users_app = typer.Typer(no_args_is_help=True, help="Users.")
mandates_app = typer.Typer(no_args_is_help=True, help="Mandates (tenants).")
keys_app = typer.Typer(no_args_is_help=True, help="API keys.")
blobs_app = typer.Typer(no_args_is_help=True, help="Stored file bytes.")
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
app.add_typer(mandates_app, name="mandates")
app.add_typer(keys_app, name="keys")
app.add_typer(blobs_app, name="blobs")

T = TypeVar("T")


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def run_with_runtime(
    work: Callable[[Runtime], Awaitable[T]], settings: AllSettings | None = None
) -> T:
    """Run `work` against a migrated runtime over `settings` (default: read from the
    environment now); domain errors become one line and exit 1."""

    import asyncio

    from agentur.runtime import Runtime

    async def main() -> T:
        runtime = Runtime.from_settings(settings)
        try:
            await runtime.migrate()
            return await work(runtime)
        finally:
            await runtime.close()

    try:
        return asyncio.run(main())
    except AgenturError as error:
        fail(error.detail)
        raise  # unreachable; keeps type checkers content


def cli_errors(function: Callable[..., None]) -> Callable[..., None]:
    @wraps(function)
    def wrapper(*args: object, **kwargs: object) -> None:
        try:
            function(*args, **kwargs)
        except (ValueError, OSError) as error:
            fail(str(error))

    return wrapper


@app.command()
@cli_errors
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default from settings).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default from settings).")] = None,
) -> None:
    """Migrate the database, create a local admin on first start, and serve the API."""
    import logging

    import uvicorn

    from agentur.accounts.bootstrap import ensure_local_admin
    from agentur.api.app import create_app
    from agentur.api.http_protocol import ProblemHttpProtocol
    from agentur.settings import AllSettings
    from agentur.workspace.blob_garbage import sweep_unreferenced_blobs

    all_settings = AllSettings.from_environment()
    settings = all_settings.core
    logging.basicConfig(level=settings.log_level.upper())

    async def prepare(runtime: Runtime) -> None:
        await sweep_unreferenced_blobs(runtime.database, runtime.blobs)
        key = await ensure_local_admin(runtime.database, settings.admin_key_path)
        if key:
            typer.echo(f"Created local admin. API key (shown once): {key}")
            typer.echo(f"The key is also in {settings.admin_key_path} (mode 0600).")
        else:
            typer.echo(
                f"Using existing accounts; the first admin key is in {settings.admin_key_path}."
            )

    run_with_runtime(prepare, all_settings)  # migrates, so the app need not
    uvicorn.run(
        create_app(all_settings, migrate=False),
        host=host or settings.host,
        port=port or settings.port,
        log_level=settings.log_level.lower(),
        http=ProblemHttpProtocol,
    )


@db_app.command("upgrade")
@cli_errors
def db_upgrade() -> None:
    """Apply all migrations."""

    async def done(runtime: Runtime) -> None:
        typer.echo(f"database is up to date ({runtime.database.engine.dialect.name})")

    run_with_runtime(done)


@blobs_app.command("gc")
@cli_errors
def blobs_gc() -> None:
    """Remove file bytes no file uses any more (past AGENTUR_BLOB_GRACE_SECONDS)."""
    from agentur.workspace.blob_garbage import sweep_unreferenced_blobs

    async def sweep(runtime: Runtime) -> int:
        return await sweep_unreferenced_blobs(runtime.database, runtime.blobs)

    typer.echo(f"removed {run_with_runtime(sweep)} unreferenced blob(s)")


@users_app.command("create")
@cli_errors
def users_create(
    email: str,
    mandate: Annotated[str, typer.Option(help="Mandate name to join.")] = "default",
    role: Annotated[Role, typer.Option(help="Role in the mandate.")] = Role.member,
    name: Annotated[str, typer.Option(help="Display name.")] = "",
) -> None:
    """Create a user as a member of a mandate."""
    from agentur.accounts import directory

    async def create(runtime: Runtime) -> str:
        async with runtime.database.transaction() as session:
            target = await directory.find_mandate_by_name(session, mandate)
            user = await directory.create_user(session, email, name)
            await directory.add_membership(
                session, user_id=user.id, mandate_id=target.id, role=role
            )
            return user.id

    typer.echo(run_with_runtime(create))


@mandates_app.command("create")
@cli_errors
def mandates_create(name: str) -> None:
    """Create a mandate (tenant)."""
    from agentur.accounts import directory

    async def create(runtime: Runtime) -> str:
        async with runtime.database.transaction() as session:
            return (await directory.create_mandate(session, name)).id

    typer.echo(run_with_runtime(create))


@keys_app.command("create")
@cli_errors
def keys_create(
    email: str,
    mandate: Annotated[str, typer.Option(help="Mandate the key acts in.")] = "default",
    name: Annotated[str, typer.Option(help="A label for the key.")] = "",
    expires_in_days: Annotated[
        int | None, typer.Option(min=1, help="Days until the key expires.")
    ] = None,
) -> None:
    """Issue an API key; it is printed once and never stored in plain text."""
    from datetime import UTC, datetime, timedelta

    from agentur.accounts import directory
    from agentur.accounts.api_keys import issue_api_key

    async def create(runtime: Runtime) -> str:
        async with runtime.database.transaction() as session:
            user = await directory.find_user_by_email(session, email)
            target = await directory.find_mandate_by_name(session, mandate)
            if await directory.find_membership(session, user.id, target.id) is None:
                raise AgenturError(f"{email} is not a member of mandate {mandate!r}")
            expires_at = (
                datetime.now(UTC) + timedelta(days=expires_in_days) if expires_in_days else None
            )
            issued = await issue_api_key(
                session, user_id=user.id, mandate_id=target.id, name=name, expires_at=expires_at
            )
            return issued.plaintext

    typer.echo(run_with_runtime(create))


@keys_app.command("revoke")
@cli_errors
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id (or by the key itself)."""
    from agentur.accounts.api_keys import revoke_api_key

    async def revoke(runtime: Runtime) -> None:
        async with runtime.database.transaction() as session:
            await revoke_api_key(session, await _key_id(session, key_id))

    run_with_runtime(revoke)
    typer.echo("revoked")


async def _key_id(session, value: str) -> str:  # type: ignore[no-untyped-def]
    """Accept a key id or a whole key (`agt_<lookup>_<secret>`)."""
    from sqlalchemy import select

    from agentur.storage.models import ApiKey

    if value.startswith("agt_"):
        lookup = value.split("_")[1]
        found = await session.scalar(select(ApiKey.id).where(ApiKey.lookup_id == lookup))
        return found or value
    return value


from agentur.cli import agent_commands  # noqa: E402  (needs `app` and `fail` above)

agent_commands.register(app)

from agentur.cli import assistant_commands  # noqa: E402

assistant_commands.register(app)

from agentur.cli import knowledge_commands  # noqa: E402

knowledge_commands.register(app)

from agentur.cli import feature_commands  # noqa: E402

feature_commands.register(app, run_with_runtime, cli_errors, agent_commands._local_context)

from agentur.cli import connection_commands  # noqa: E402

connection_commands.register(app, run_with_runtime, fail, agent_commands._local_context)

from agentur.cli import budget_commands  # noqa: E402

budget_commands.register(mandates_app, run_with_runtime, cli_errors)

from agentur.cli import meeting_commands  # noqa: E402

meeting_commands.register(app)

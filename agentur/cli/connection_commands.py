"""`agentur connections …` — list, add, test and delete connections as a local user.

The password is read from an environment variable or a hidden prompt, never from the command
line (which other users of the machine can see), and is never printed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentur.connections.connection_kind import kind_names

if TYPE_CHECKING:
    from agentur.connections.service import ConnectionService
    from agentur.context import RequestContext
    from agentur.runtime import Runtime

connections_app = typer.Typer(no_args_is_help=True, help="Connections to mail and data sources.")
UserOption = Annotated[
    str | None, typer.Option("--user", help="User e-mail (default: local admin).")
]


def _show(connection: dict[str, Any]) -> None:
    shared = "shared" if connection["shared"] else "personal"
    error = f"  ({connection['last_error']})" if connection["last_error"] else ""
    typer.echo(
        f"{connection['id']}  {connection['kind']:<7} {connection['status']:<9} {shared:<8} "
        f"{connection['display_name']}{error}"
    )


def register(
    app: typer.Typer,
    run_with_runtime: Callable[[Callable[[Runtime], Awaitable[Any]]], Any],
    fail: Callable[[str], None],
    local_context: Callable[[Runtime, str | None, str], Awaitable[RequestContext]],
) -> None:
    """`cli.main` hands in its helpers, so this module does not import it back (no circle)."""
    app.add_typer(connections_app, name="connections")

    def with_service(user: str | None, work: Any) -> Any:
        async def run(runtime: Runtime) -> Any:
            from agentur.connections.service import ConnectionService, credentials_box

            context = await local_context(runtime, user, "UTC")
            async with runtime.database.session() as session:
                box = credentials_box(runtime.settings)
                settings = runtime.all_settings.connections
                return await work(ConnectionService(session, context, box, settings))

        return run_with_runtime(run)

    @connections_app.command("list")
    def list_command(user: UserOption = None) -> None:
        """Your connections and your mandate's shared ones."""
        from agentur.connections.service import describe

        async def work(service: ConnectionService) -> list[dict[str, Any]]:
            return [describe(c) for c in await service.list()]

        for connection in with_service(user, work):
            _show(connection)

    @connections_app.command("add")
    def add_command(
        kind: Annotated[str, typer.Option(help=f"One of: {', '.join(kind_names())}.")],
        name: Annotated[str, typer.Option(help="Display name.")],
        settings: Annotated[str, typer.Option(help="Settings as a JSON object.")],
        password_env: Annotated[
            str | None, typer.Option(help="Read the password from this environment variable.")
        ] = None,
        shared: Annotated[bool, typer.Option(help="For the whole mandate (admins).")] = False,
        neutralize: Annotated[bool, typer.Option(help="Neutralize files taken from it.")] = False,
        user: UserOption = None,
    ) -> None:
        """Add a connection; the password comes from --password-env or a hidden prompt."""
        from agentur.connections.kinds import Credentials
        from agentur.connections.service import describe

        try:
            parsed = json.loads(settings)
        except json.JSONDecodeError as error:
            fail(f"--settings is not JSON: {error.msg} at character {error.pos}")
        if not isinstance(parsed, dict):
            fail("--settings must be a JSON object")
        if password_env is not None:
            if password_env not in os.environ:
                fail(f"the environment variable {password_env} is not set")
            password = os.environ[password_env]
        else:
            password = typer.prompt("Password (empty: none)", default="", hide_input=True)

        async def work(service: ConnectionService) -> dict[str, Any]:
            connection = await service.create(
                kind, name, parsed, Credentials(password=password),
                shared=shared, neutralize=neutralize,
            )  # fmt: skip
            await service.commit()
            return describe(connection)

        _show(with_service(user, work))

    @connections_app.command("test")
    def test_command(connection_id: str, user: UserOption = None) -> None:
        """Reach the server and log in; exits 1 when that fails."""
        from agentur.connections.check_connection import check_connection
        from agentur.connections.service import describe

        async def work(service: ConnectionService) -> dict[str, Any]:
            connection = await service.get(connection_id)
            timeout = service.settings.connection_timeout_seconds
            await check_connection(service, connection, timeout)
            await service.commit()
            return describe(connection)

        outcome = with_service(user, work)
        _show(outcome)
        if outcome["status"] != "ok":
            raise typer.Exit(1)

    @connections_app.command("delete")
    def delete_command(connection_id: str, user: UserOption = None) -> None:
        """Delete a connection."""

        async def work(service: ConnectionService) -> None:
            await service.delete(connection_id)
            await service.commit()

        with_service(user, work)
        typer.echo(f"deleted {connection_id}")

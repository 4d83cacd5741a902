"""`agentur features …` — create a feature instance and import a table from CSV/XLSX.

Heavy parts (runtime, database, openpyxl) are imported inside the commands, so `agentur --help`
does not pay for them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer

features_app = typer.Typer(no_args_is_help=True, help="Feature instances and their tables.")


def register(
    app: typer.Typer,
    run_with_runtime: Callable[[Callable[[Any], Awaitable[Any]]], Any],
    cli_errors: Callable[[Callable[..., None]], Callable[..., None]],
    local_context: Callable[[Any, str | None, str], Awaitable[Any]],
) -> None:
    """Handed main's helpers, so this module never imports main back (no import circle)."""
    app.add_typer(features_app, name="features")

    @features_app.command("create")
    @cli_errors
    def create(
        feature_code: Annotated[str, typer.Argument(help="The feature, e.g. trustee.")],
        name: Annotated[str, typer.Option(help="A label for the instance.")] = "",
        user: Annotated[str | None, typer.Option(help="E-mail of the acting user.")] = None,
    ) -> None:
        """Create a feature instance in the user's mandate; prints its id."""

        async def work(runtime) -> str:  # type: ignore[no-untyped-def]
            from agentur.features.instances import create_instance

            context = await local_context(runtime, user, "UTC")
            async with runtime.database.transaction() as session:
                return (await create_instance(session, context, feature_code, name)).id

        typer.echo(run_with_runtime(work))

    @features_app.command("import")
    @cli_errors
    def import_table(
        instance_id: Annotated[str, typer.Argument(help="Feature instance id.")],
        table: Annotated[str, typer.Argument(help="Table, e.g. journal_entries.")],
        path: Annotated[Path, typer.Argument(help="CSV (UTF-8, header row) or XLSX file.")],
        user: Annotated[str | None, typer.Option(help="E-mail of the acting user.")] = None,
    ) -> None:
        """Import all rows of a file into a table, or none when any row is invalid."""
        data = path.read_bytes()

        async def work(runtime) -> int:  # type: ignore[no-untyped-def]
            context = await local_context(runtime, user, "UTC")
            return await runtime.feature_data.import_file(
                context,
                instance_id,
                table,
                data,
                path.name,
                max_rows=runtime.all_settings.features.feature_import_max_rows,
            )

        count = run_with_runtime(work)
        typer.echo(f"imported {count} rows into {table}")

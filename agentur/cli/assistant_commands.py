"""`agentur assistants …` — replay a labelled message set through the pre-flight, and run the
nightly replay schedule.

`replay` exits 0 when no decision changed since the previous replay, 3 when any did (after
raising the alert), 1 on errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentur.errors import InvalidInputError, NotFoundError

if TYPE_CHECKING:  # imported where used: `agentur --help` stays fast
    from agentur.ai.service import AiService
    from agentur.assistant.replay import ReplayReport
    from agentur.runtime import Runtime

EXIT_CHANGED = 3
assistants_app = typer.Typer(no_args_is_help=True, help="Visitor assistants.")


def ai_for(runtime: Runtime) -> AiService:
    """The gateway the replay calls (a seam for tests to hand in a scripted provider)."""
    return runtime.ai


async def _find(runtime: Runtime, key: str, mandate: str | None) -> str:
    from sqlalchemy import or_, select

    from agentur.storage.models import Mandate
    from agentur.storage.models.assistant import Assistant

    async with runtime.database.session() as session:
        query = select(Assistant).where(or_(Assistant.id == key, Assistant.name == key))
        if mandate:
            query = query.join(Mandate, Mandate.id == Assistant.mandate_id).where(
                Mandate.name == mandate
            )
        found = list((await session.execute(query)).scalars())
    if not found:
        raise NotFoundError(f"no assistant {key!r}")
    if len(found) > 1:
        raise NotFoundError(f"{len(found)} assistants are called {key!r}; pass the id or --mandate")
    return found[0].id


def register(app: typer.Typer) -> None:
    from agentur.cli.main import run_with_runtime

    app.add_typer(assistants_app, name="assistants")

    @assistants_app.command("replay")
    def replay(
        assistant: Annotated[str, typer.Argument(help="Assistant id or name.")],
        labels: Annotated[Path, typer.Option(help='JSONL file: {"text", "expected"} per line.')],
        mandate: Annotated[str | None, typer.Option(help="Mandate name, when names clash.")] = None,
        keep_labels: Annotated[
            bool, typer.Option(help="Store the label set for the nightly replay.")
        ] = True,
    ) -> None:
        """Run labelled messages through the pre-flight and compare with the last replay."""
        from agentur.assistant.replay import read_labels, run_replay
        from agentur.storage.models.assistant import Assistant

        async def work(runtime: Runtime) -> ReplayReport:
            settings = runtime.all_settings.assistant
            try:
                label_set = read_labels(labels)
            except OSError as error:
                raise InvalidInputError(f"cannot read {labels}: {error.strerror}") from error
            assistant_id = await _find(runtime, assistant, mandate)
            async with runtime.database.transaction() as session:
                row = await session.get(Assistant, assistant_id)
                assert row is not None
                if keep_labels:
                    row.labels = [label.model_dump() for label in label_set]
                return await run_replay(session, ai_for(runtime), row, label_set, settings)

        report = run_with_runtime(work)
        typer.echo(report.table())
        if report.alert:
            typer.echo("alert: " + ", ".join(f"{k} {v}" for k, v in report.alert.items()), err=True)
        if report.changed:
            raise typer.Exit(EXIT_CHANGED)

    @assistants_app.command("nightly")
    def nightly(
        once: Annotated[
            bool, typer.Option(help="Replay every labelled assistant now and exit.")
        ] = False,
    ) -> None:
        """Run the nightly replay schedule (AGENTUR_ASSISTANT_REPLAY_TIME / _TIMEZONE)."""
        import asyncio

        from agentur.assistant.nightly_replay import next_run, replay_all, run_schedule
        from agentur.context import utc_now

        async def work(runtime: Runtime) -> list[ReplayReport]:
            settings = runtime.all_settings.assistant
            if once:
                return await replay_all(runtime, ai_for(runtime), settings)
            due = next_run(
                utc_now(), settings.assistant_replay_time, settings.assistant_replay_timezone
            )
            typer.echo(f"nightly replay scheduled; next run {due.isoformat()}")
            await run_schedule(runtime, ai_for(runtime), settings, asyncio.Event())
            return []

        reports = run_with_runtime(work)
        for report in reports:
            typer.echo(
                f"{report.assistant_id}: {report.changed} changed, {report.mismatched} mismatched"
            )
        if any(report.changed for report in reports):
            raise typer.Exit(EXIT_CHANGED)

"""`agentur index PATH…` and `agentur search "query"` against the local storage.

`index` uploads the files into the local user's workspace (name = path relative to the given
argument, `/` shown as ` ∕ `; equal names are replaced, so re-running skips unchanged files)
and indexes them in this process with a progress bar per file by chunks embedded. `--worker`
instead runs the background indexer until interrupted (the documented way to index on separate
PostgreSQL workers, or beside `agentur serve` with `AGENTUR_KNOWLEDGE_WORKER_ENABLED=0`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentur.cli.agent_commands import _local_context
from agentur.errors import InvalidInputError
from agentur.workspace.scope_names import Scope

if TYPE_CHECKING:  # imported where used: `agentur --help` stays fast
    from agentur.runtime import Runtime

SLASH_IN_NAMES = " ∕ "  # U+2215: names may not contain '/', the path stays readable


def _collect(paths: list[Path]) -> list[tuple[Path, str]]:
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            for item in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in item.relative_to(path).parts):
                    continue
                relative = item.relative_to(path.parent).as_posix()
                found.append((item, relative.replace("/", SLASH_IN_NAMES)))
        elif path.is_file():
            found.append((path, path.name))
        else:
            raise InvalidInputError(f"{path} is neither a file nor a folder")
    return found


async def _bytes(path: Path) -> AsyncIterator[bytes]:
    yield await asyncio.to_thread(path.read_bytes)


class ChunkBar:
    """A file's progress bar by chunks embedded, drawn once the chunk count is known."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._bar: Any = None
        self._shown = 0

    async def update(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = typer.progressbar(length=max(total, 1), label=self.label, show_pos=True)
            self._bar.__enter__()
        self._bar.update(done - self._shown)
        self._shown = done

    def __enter__(self) -> ChunkBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def register(app: typer.Typer) -> None:
    from agentur.cli.main import run_with_runtime

    @app.command("index")
    def index(
        paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders.")] = None,
        scope: Annotated[Scope, typer.Option(help="Scope of the uploaded files.")] = Scope.personal,
        user: Annotated[
            str | None, typer.Option(help="Email of the owner (default: admin).")
        ] = None,
        worker: Annotated[bool, typer.Option(help="Run the background indexer.")] = False,
    ) -> None:
        """Upload and index files or folders (unchanged files are skipped)."""
        from agentur.accounts.bootstrap import ensure_local_admin
        from agentur.knowledge.store import knowledge_store
        from agentur.workspace.files import FileService, OnConflict

        async def work(runtime: Runtime) -> None:
            store = knowledge_store(runtime)
            if worker:
                typer.echo("knowledge worker running; Ctrl-C stops it")
                await store.worker.run_forever()
                return
            items = _collect(paths or [])
            if not items:
                raise InvalidInputError("give at least one file or folder")
            await ensure_local_admin(runtime.database, runtime.settings.admin_key_path)
            context = await _local_context(runtime, user, "UTC")
            outcomes: Counter[str] = Counter()
            failures: list[str] = []
            for number, (path, name) in enumerate(items, start=1):
                async with runtime.database.session() as session:
                    files = FileService(session, runtime.blobs, context, runtime.workspace_limits)
                    stored = await files.upload(
                        name, _bytes(path), scope=scope, on_conflict=OnConflict.replace
                    )
                    await files.commit()
                with ChunkBar(f"[{number}/{len(items)}] {name}") as bar:
                    outcome = await store.indexer.index_file(stored.id, on_progress=bar.update)
                outcomes[outcome.status] += 1
                if outcome.status == "failed":
                    failures.append(f"{path}: {outcome.error}")
            for failure in failures:
                typer.echo(f"failed: {failure}", err=True)
            summary = ", ".join(f"{count} {status}" for status, count in sorted(outcomes.items()))
            typer.echo(f"{len(items)} files: {summary}")

        run_with_runtime(work)

    @app.command("search")
    def search(
        query: str,
        limit: Annotated[int, typer.Option(min=1, help="Hits to show.")] = 5,
        user: Annotated[str | None, typer.Option(help="Email of the searcher.")] = None,
    ) -> None:
        """Hybrid search over the indexed files you may see."""
        from agentur.accounts.bootstrap import ensure_local_admin
        from agentur.knowledge.store import knowledge_store

        async def work(runtime: Runtime) -> None:
            await ensure_local_admin(runtime.database, runtime.settings.admin_key_path)
            context = await _local_context(runtime, user, "UTC")
            store = knowledge_store(runtime)
            async with runtime.database.session() as session:
                result = await store.search.search(session, query, context, limit=limit)
            legs = "+".join(result.legs)
            note = f" (vector leg skipped: {result.vector_error})" if result.vector_error else ""
            typer.echo(f"{len(result.hits)} hits via {legs}{note}")
            for rank, hit in enumerate(result.hits, start=1):
                where = " > ".join(hit.heading_path)
                page = f" p.{hit.page}" if hit.page else ""
                typer.echo(f"{rank}. {hit.file_name}{page} {where} [{hit.score:.4f}]")
                typer.echo("   " + " ".join(hit.text.split())[:200])

        run_with_runtime(work)

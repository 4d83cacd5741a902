"""write_file's modes on real storage: `create` refuses a taken name; `overwrite` and `append`
by name create the file when it does not exist yet (as writing to a path does everywhere) and
say so; by id they change only a file that exists."""

from __future__ import annotations

import json

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from agentur.workspace.folders import FolderService
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants
from tests.tools.test_workspace_tools import results


async def _run(runtime: Runtime, member, *calls) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    ai, _ = scripted([ScriptedTurn.calls(*calls), ScriptedTurn(text="Done.")])
    recorder = Recorder()
    await run_agent("x", AgentConfig(), member.context, deps(ai, runtime=runtime), emit=recorder)
    return results(recorder)


async def _text(runtime: Runtime, member, name: str) -> str:  # type: ignore[no-untyped-def]
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, member.context, runtime.workspace_limits)
        listing = await files.list(folder_id="root", search=name, limit=10)
        (file,) = [f for f in listing.files if f.name == name]
        return (await files.read_text(file.id))[1]


async def test_overwrite_and_append_by_name_create_a_new_file(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    # Qwen2.5-Coder-1.5B asked to write a new saturday.txt called overwrite, then append.
    out = await _run(
        runtime,
        alice,
        call("write_file", "new", name="saturday.txt", mode="overwrite", content="9:00-16:00"),
        call("write_file", "more", name="saturday.txt", mode="append", content="\nSunday: closed"),
        call("write_file", "log", name="log.txt", mode="append", content="first line"),
        call("write_file", "again", name="saturday.txt", mode="create", content="x"),
    )
    created = json.loads(out["new"]["content"])
    assert created["created"] is True and created["name"] == "saturday.txt"
    appended = json.loads(out["more"]["content"])
    assert appended["created"] is False and appended["file_id"] == created["file_id"]
    assert json.loads(out["log"]["content"])["created"] is True
    assert await _text(runtime, alice, "saturday.txt") == "9:00-16:00\nSunday: closed"
    assert await _text(runtime, alice, "log.txt") == "first line"
    # `create` still refuses a name that is taken, and says what to use instead.
    assert out["again"]["is_error"] and "overwrite" in out["again"]["content"]


async def test_overwrite_by_name_changes_the_file_in_that_folder_only(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    async with runtime.database.session() as session:
        folder = await FolderService(session, alice.context, 255).create("Projekte")
        await session.commit()
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        inside = await files.write_text("plan.md", "old", folder_id=folder.id)
        await files.commit()
    out = await _run(
        runtime,
        alice,
        call("write_file", "in", name="plan.md", folder_id=folder.id, mode="overwrite",
             content="new"),
        call("write_file", "top", name="plan.md", mode="overwrite", content="top level"),
    )  # fmt: skip
    changed = json.loads(out["in"]["content"])
    assert changed["file_id"] == inside.id and changed["created"] is False
    top = json.loads(out["top"]["content"])
    assert top["created"] is True and top["file_id"] != inside.id
    assert await _text(runtime, alice, "plan.md") == "top level"  # the top level's own file


async def test_an_unknown_id_is_never_created(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member("acme")
    out = await _run(
        runtime,
        alice,
        call("write_file", "w", file_id="0b0e6f1c-1111-4c8e-9a52-3f4a1e2b7c9d", mode="overwrite",
             content="x"),
    )  # fmt: skip
    assert out["w"]["is_error"] and "not found" in out["w"]["content"]

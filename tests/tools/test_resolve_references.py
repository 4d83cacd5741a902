"""A file or folder named where an id is asked for: an unambiguous name or path resolves (and the
result says to which file), anything else is an error listing the closest candidates with ids —
for every tool, through the lifecycle wrapper, on real storage."""

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


async def _seed(runtime: Runtime, member) -> dict[str, str]:  # type: ignore[no-untyped-def]
    async with runtime.database.session() as session:
        folders = FolderService(session, member.context, 255)
        projects = await folders.create("Projekte")
        archive = await folders.create("Archiv")
        await session.commit()
        files = FileService(session, runtime.blobs, member.context, runtime.workspace_limits)
        guide = await files.write_text("aqualumen-x3-guide.txt", "Filter every 3 months.")
        budget = await files.write_text("budget.md", "CHF 72,500", folder_id=projects.id)
        old = await files.write_text("budget.md", "CHF 60,000", folder_id=archive.id)
        await files.commit()
        return {"guide": guide.id, "budget": budget.id, "old": old.id, "projects": projects.id}


async def _run(runtime: Runtime, member, *calls) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    ai, _ = scripted([ScriptedTurn.calls(*calls), ScriptedTurn(text="Done; one call failed.")])
    recorder = Recorder()
    await run_agent("x", AgentConfig(), member.context, deps(ai, runtime=runtime), emit=recorder)
    return results(recorder)


async def test_names_and_paths_resolve_to_ids_and_the_result_says_which(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    ids = await _seed(runtime, alice)
    out = await _run(
        runtime,
        alice,
        call("read_file", "name", file_id="aqualumen-x3-guide.txt"),
        call("read_file", "path", file_id="Projekte/budget.md"),
        call("copy_file", "copy", file_id="aqualumen-x3-guide.txt", folder_id="Projekte"),
        call("search_in_file_content", "ids", query="CHF", file_ids=["Archiv/budget.md"]),
    )
    by_name = json.loads(out["name"]["content"])
    assert by_name["content"] == "Filter every 3 months."
    assert by_name["resolved"] == [
        {
            "argument": "file_id",
            "given": "aqualumen-x3-guide.txt",
            "id": ids["guide"],
            "name": "aqualumen-x3-guide.txt",
        }
    ]
    by_path = json.loads(out["path"]["content"])
    assert by_path["content"] == "CHF 72,500" and by_path["resolved"][0]["id"] == ids["budget"]
    copied = json.loads(out["copy"]["content"])
    assert {r["argument"]: r["id"] for r in copied["resolved"]} == {
        "file_id": ids["guide"],
        "folder_id": ids["projects"],
    }
    found = json.loads(out["ids"]["content"])
    assert [m["file_id"] for m in found["matches"]] == [ids["old"]]


async def test_a_context_line_copied_as_the_id_resolves_to_the_one_id_it_holds(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    ids = await _seed(runtime, alice)
    bob = await tenants.member("other")
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, bob.context, runtime.workspace_limits)
        foreign = await files.write_text("secret.md", "not for acme")
        await files.commit()
    # As Qwen2.5-Coder-0.5B passed it: the line of the "Known files" list, id and all.
    out = await _run(
        runtime,
        alice,
        call("read_file", "line", file_id=f"budget.md (file_id {ids['budget']}) — Budget"),
        call("read_file", "two", file_id=f"{ids['budget']} or {ids['old']}"),
        call("read_file", "foreign", file_id=f"secret.md (file_id {foreign.id})"),
    )
    line = json.loads(out["line"]["content"])
    assert line["content"] == "CHF 72,500" and line["resolved"][0]["id"] == ids["budget"]
    assert out["two"]["is_error"] and "names 2 files" in out["two"]["content"]
    assert out["foreign"]["is_error"] and "not for acme" not in out["foreign"]["content"]


async def test_null_written_as_a_string_is_no_reference(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member("acme")
    ids = await _seed(runtime, alice)
    # a 1.5B model's call: JSON null as the string "null" means "every folder"
    out = await _run(runtime, alice, call("list_files", "all", folder_id="null"))
    assert not out["all"]["is_error"], out["all"]["content"]
    listed = {f["file_id"] for f in json.loads(out["all"]["content"])["files"]}
    assert {ids["guide"], ids["budget"], ids["old"]} <= listed


async def test_an_ambiguous_or_unknown_name_is_an_error_listing_candidates_with_ids(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    ids = await _seed(runtime, alice)
    out = await _run(
        runtime,
        alice,
        call("read_file", "two", file_id="budget.md"),
        call("read_file", "typo", file_id="aqualumen-x3-guid.txt"),
        call("search_in_file_content", "none", query="CHF", file_ids=["velowerk-info.md"]),
    )
    two = out["two"]
    assert two["is_error"] and "names 2 files" in two["content"]
    assert ids["budget"] in two["content"] and ids["old"] in two["content"]
    typo = out["typo"]
    assert typo["is_error"] and f"aqualumen-x3-guide.txt (id {ids['guide']})" in typo["content"]
    # A filter naming nothing that exists is an error, not an empty result.
    assert out["none"]["is_error"] and "velowerk-info.md not found" in out["none"]["content"]


async def test_another_tenants_file_is_never_found_by_name(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("evil")
    ids = await _seed(runtime, alice)
    out = await _run(runtime, mallory, call("read_file", "r", file_id="aqualumen-x3-guide.txt"))
    assert out["r"]["is_error"] and ids["guide"] not in out["r"]["content"]


async def test_a_tag_no_file_has_is_an_error_naming_the_tags_in_use(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    ids = await _seed(runtime, alice)
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        await files.set_tags(ids["guide"], ["manual"])
        await files.commit()
    # a 1.5B model's call: a file's name passed as a tag
    out = await _run(
        runtime,
        alice,
        call("list_files", "name", tags=["notes.txt"]),
        call("list_files", "tag", tags=["manual"]),
    )
    assert out["name"]["is_error"] and "notes.txt" in out["name"]["content"]
    assert "tags in use: manual" in out["name"]["content"]
    listed = json.loads(out["tag"]["content"])["files"]
    assert [f["file_id"] for f in listed] == [ids["guide"]]

"""Workspace, folder and workflow-history tools through the agent loop on real storage, with
the same tenant checks as the HTTP API."""

from __future__ import annotations

import json

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.agent.trace import TraceStore
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants


async def upload(runtime: Runtime, member, name: str, text: str) -> str:  # type: ignore[no-untyped-def]
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, member.context, runtime.workspace_limits)
        file = await files.write_text(name, text)
        await files.commit()
        return file.id


def results(recorder: Recorder) -> dict[str, dict]:
    return {e["id"]: e for e in recorder.of(EventType.tool_result)}


async def test_a_tool_cannot_act_on_another_tenants_file(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("evil")
    secret_id = await upload(runtime, alice, "salaries.txt", "CEO: 1,000,000")
    ai, _ = scripted(
        [
            ScriptedTurn.calls(
                call("read_file", "r", file_id=secret_id),
                call("search_in_file_content", "s", query="CEO", file_ids=[secret_id]),
            ),
            ScriptedTurn.calls(
                call("write_file", "w", file_id=secret_id, mode="overwrite", content="pwned"),
                call("rename_file", "n", file_id=secret_id, new_name="mine.txt"),
                call("copy_file", "c", file_id=secret_id),
                call("delete_file", "d", file_id=secret_id),
            ),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "steal", AgentConfig(), mallory.context, deps(ai, runtime=runtime), emit=recorder
    )

    outcome = results(recorder)
    for call_id in "rswncd":
        assert outcome[call_id]["is_error"], outcome[call_id]
        assert f"file {secret_id} not found" in outcome[call_id]["content"]
    assert "1,000,000" not in json.dumps(recorder.of(EventType.tool_result))
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        file, text = await files.read_text(secret_id)
    assert (file.name, text) == ("salaries.txt", "CEO: 1,000,000")


async def test_file_folder_and_history_tools_end_to_end(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    lines = "".join(f"line {i}\n" for i in range(1, 101))
    notes_id = await upload(runtime, alice, "notes.txt", lines)
    script = [
        ScriptedTurn.calls(
            call("create_folder", "f1", name="reports"),
            call("write_file", "w1", name="draft.md", content="Hello Wrld"),
        ),
        lambda request: ScriptedTurn.calls(
            call(
                "replace_in_file",
                "r1",
                file_id=_id(request, "w1"),
                search="Wrld",
                replacement="World",
            ),
            call("write_file", "w2", file_id=_id(request, "w1"), mode="append", content="!"),
            call("tag_file", "t1", file_id=_id(request, "w1"), tags=["draft", "q3"]),
            call(
                "move_file",
                "m1",
                file_id=_id(request, "w1"),
                folder_id=_id(request, "f1", "folder_id"),
            ),
            call("copy_file", "c1", file_id=notes_id, name="notes-copy.txt"),
            call(
                "rename_folder", "rf", folder_id=_id(request, "f1", "folder_id"), new_name="final"
            ),
        ),
        lambda request: ScriptedTurn.calls(
            call("read_file", "x1", file_id=notes_id, start_line=99, line_count=5),
            call("read_file", "x2", file_id=_id(request, "w1")),
            call("list_files", "x3", tags=["q3"]),
            call("search_in_file_content", "x4", query="LINE 42"),
            call("list_folders", "x5"),
            call("list_workflow_history", "x6"),
        ),
        ScriptedTurn.calls(
            call("delete_folder", "d1", folder_id="placeholder"),
        ),
        # The last round's only call failed: an answer that says so is accepted at once.
        ScriptedTurn(text="All done, except the folder 'placeholder': it was not found."),
    ]
    ai, provider = scripted(script)
    recorder = Recorder()
    result = await run_agent(
        "organize", AgentConfig(), alice.context, deps(ai, runtime=runtime), emit=recorder
    )

    assert result.status == "completed", result.final_text
    out = {
        k: (json.loads(v["content"]) if not v["is_error"] else v["content"])
        for k, v in results(recorder).items()
    }
    assert out["x1"]["content"] == "line 99\nline 100\n"
    assert out["x1"]["total_lines"] == 100 and out["x1"]["next_start_line"] is None
    assert out["x2"]["content"] == "Hello World!" and out["x2"]["total_length"] == 12
    assert [f["name"] for f in out["x3"]["files"]] == ["draft.md"]
    assert out["x3"]["files"][0]["tags"] == ["draft", "q3"]
    assert [(m["name"], m["line"]) for m in out["x4"]["matches"]] == [
        ("notes-copy.txt", 42),
        ("notes.txt", 42),
    ]
    assert [f["name"] for f in out["x5"]["folders"]] == ["final"]
    assert out["x6"]["workflows"][0]["is_current"] is True
    assert "folder placeholder not found" in out["d1"]
    # The run's own conversation landed in its workflow and the trace is stored.
    run, entries = await TraceStore(runtime.database).get(result.run_id, alice.context)
    assert run.status == "completed" and run.rounds == 5
    kinds = [e.kind for e in entries]
    assert kinds.count("tool_call") == 15 and kinds.count("model_call") == 5
    assert kinds[0] == "status" and entries[-1].data["status"] == "completed"


def _id(request, call_id: str, key: str = "file_id") -> str:  # type: ignore[no-untyped-def]
    for message in request.messages:
        if message.tool_call_id == call_id:
            return json.loads(message.content)[key]
    raise AssertionError(f"no result for {call_id}")


async def test_a_read_beyond_the_largest_window_gets_that_window(
    runtime: Runtime, tenants: Tenants
) -> None:
    # Qwen2.5-Coder-1.5B asked read_file for 1,000,000 characters "to read it all" and failed
    # twice on the error.
    alice = await tenants.member("acme")
    hours_id = await upload(runtime, alice, "hours.md", "Saturday 9:00 to 16:00")
    largest = runtime.workspace_limits.max_read_window
    ai, _ = scripted(
        [
            ScriptedTurn.calls(call("read_file", "r", file_id=hours_id, limit=1_000_000)),
            ScriptedTurn(text="Saturday 9:00 to 16:00."),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "hours?", AgentConfig(), alice.context, deps(ai, runtime=runtime), emit=recorder
    )
    outcome = results(recorder)["r"]
    assert not outcome["is_error"], outcome["content"]
    read = json.loads(outcome["content"])
    assert read["content"] == "Saturday 9:00 to 16:00" and read["next_offset"] is None
    assert read["limit_lowered_to"] == largest < 1_000_000

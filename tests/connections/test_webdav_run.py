"""The issue's data-source run on a real WebDAV server (WsgiDAV on 127.0.0.1): a file found and
downloaded from a source marked `neutralize` reaches the next model call with placeholders,
not its personal data; an unmarked source's file is shown as is; uploads land on the server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.runtime import Runtime
from agentur.storage.models import Base, File
from agentur.workspace.files import FileService
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Member, Tenants
from tests.connections.test_mail_run import last_result
from tests.connections.webdav_server import DAV_PASSWORD, DAV_USER, webdav_server
from tests.egress.allowed_hosts import allow

PII_TEXT = "Customer report\nContact: anna.meier@example.com, phone +41 79 123 45 67\n"


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "share"
    (root / "clients" / "2026").mkdir(parents=True)
    (root / "clients" / "2026" / "report-meier.txt").write_text(PII_TEXT)
    (root / "clients" / "notes.txt").write_text("nothing here")
    with webdav_server(root) as base_url:
        allow(monkeypatch, base_url)
        yield base_url, root


async def add_source(runtime: Runtime, member: Member, base_url: str, neutralize: bool) -> str:
    async with runtime.database.session() as session:
        service = ConnectionService(
            session,
            member.context,
            credentials_box(runtime.settings),
            runtime.all_settings.connections,
        )
        connection = await service.create(
            "webdav", "Client share", {"base_url": base_url, "username": DAV_USER},
            Credentials(password=DAV_PASSWORD), neutralize=neutralize,
        )  # fmt: skip
        await service.commit()
        return connection.id


def download_step(request: AiRequest) -> ScriptedTurn:
    [match] = last_result(request)["matches"]
    return ScriptedTurn.calls(call("download_to_workspace", "d", path=match["path"]))


def read_step(request: AiRequest) -> ScriptedTurn:
    return ScriptedTurn.calls(call("read_file", "r", file_id=last_result(request)["file_id"]))


async def run_download(runtime: Runtime, member: Member) -> tuple[list[AiRequest], Recorder]:
    ai, provider = scripted(
        [
            ScriptedTurn.calls(call("search_source", "s", query="REPORT")),
            download_step,
            read_step,
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent("read the report", AgentConfig(), member.context,
                    deps(ai, runtime=runtime), emit=recorder)  # fmt: skip
    return provider.received, recorder


@pytest.mark.parametrize("neutralize", [True, False])
async def test_download_inherits_neutralize_and_the_model_sees_placeholders(
    runtime: Runtime, tenants: Tenants, source: tuple[str, Path], neutralize: bool
) -> None:
    alice = await tenants.member("acme")
    await add_source(runtime, alice, source[0], neutralize)
    received, recorder = await run_download(runtime, alice)

    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert not [r for r in results.values() if r["is_error"]]
    downloaded = json.loads(results["d"]["content"])
    assert downloaded["source_path"] == "clients/2026/report-meier.txt"
    async with runtime.database.session() as session:
        file = await session.get(File, downloaded["file_id"])
        assert file is not None and file.neutralize is neutralize
    assert runtime.blobs.read_bytes(file.sha256) == PII_TEXT.encode()  # stored as it came

    after_read = repr(received[3].messages)
    if neutralize:
        assert "anna.meier@example.com" not in after_read
        assert "123 45 67" not in after_read
        assert "Customer report" in after_read  # the rest of the text is there
    else:
        assert "anna.meier@example.com" in after_read
    assert DAV_PASSWORD not in repr(received)
    async with runtime.database.session() as session:
        for table in Base.metadata.sorted_tables:
            assert DAV_PASSWORD not in repr((await session.execute(select(table))).all())


async def test_browse_and_upload_and_refusals(
    runtime: Runtime, tenants: Tenants, source: tuple[str, Path]
) -> None:
    base_url, root = source
    alice = await tenants.member("acme")
    await add_source(runtime, alice, base_url, False)
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        answer = await files.write_text("answer.txt", "Dear Ms Meier, thanks.")
        await files.commit()
    ai, _ = scripted(
        [
            ScriptedTurn.calls(
                call("browse_source", "b", path="clients"),
                call("upload_from_workspace", "u", file_id=answer.id,
                     path="clients/2026/answer.txt"),
                call("browse_source", "x", path="../"),
                call("download_to_workspace", "m", path="clients/missing.txt"),
            ),
            ScriptedTurn(text="done"),
        ]
    )  # fmt: skip
    recorder = Recorder()
    await run_agent("file it", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                    emit=recorder)  # fmt: skip
    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    listed = json.loads(results["b"]["content"])["entries"]
    assert sorted((e["name"], e["is_folder"]) for e in listed) == [
        ("2026", True), ("notes.txt", False)
    ]  # fmt: skip
    uploaded = json.loads(results["u"]["content"])
    assert uploaded["uploaded"] and uploaded["http_status"] in (201, 204)
    assert (root / "clients" / "2026" / "answer.txt").read_text() == "Dear Ms Meier, thanks."
    assert results["x"]["is_error"] and "may not contain '..'" in results["x"]["content"]
    assert results["m"]["is_error"] and "does not exist" in results["m"]["content"]

"""A report end to end through the agent loop with a scripted model: read a CSV, aggregate it
in the sandbox, chart the result, render a PDF report with the chart — all files land in the
workspace. Also the Vega-Lite subset and a clear error for a missing field."""

from __future__ import annotations

import io
import json

import pdfplumber
import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.runtime import Runtime
from agentur.sandbox.run_python import unavailable_reason
from agentur.workspace.files import FileService
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants
from tests.tools.test_execute_code import AGGREGATE
from tests.tools.test_workspace_tools import results, upload


def _result(request: AiRequest, call_id: str) -> dict:
    for message in request.messages:
        if message.tool_call_id == call_id:
            return json.loads(message.content)
    raise AssertionError(f"no result for {call_id}")


def _chart(request: AiRequest) -> ScriptedTurn:
    totals_id = _result(request, "x")["saved_files"][0]["file_id"]
    return ScriptedTurn.calls(
        call("create_chart", "c", type="bar", csv_file_id=totals_id, x="region", y="amount",
             title="Umsatz je Region", name="umsatz")
    )  # fmt: skip


def _report(request: AiRequest) -> ScriptedTurn:
    png_id = _result(request, "c")["files"][0]["file_id"]
    content = (
        "# Umsatzbericht\n\nDer Süden liegt zurück.\n\n"
        "| Region | Betrag |\n| --- | --- |\n| Nord | 17 |\n| Süd | 5 |\n\n"
        f"![Umsatz je Region]({png_id})\n"
    )
    return ScriptedTurn.calls(
        call("render_document", "r", content=content, format="pdf", name="bericht")
    )


@pytest.mark.skipif(unavailable_reason("bwrap") is not None, reason="no working bubblewrap")
async def test_csv_to_code_to_chart_to_pdf_report(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    sales_id = await upload(runtime, alice, "sales.csv", "region,amount\nNord,10\nSüd,5\nNord,7\n")
    ai, _ = scripted(
        [
            ScriptedTurn.call("request_toolbox", "t", toolbox_id="code", reason="aggregate"),
            ScriptedTurn.call("execute_code", "x", code=AGGREGATE, input_file_ids=[sales_id]),
            _chart,
            _report,
            ScriptedTurn(text="Der Bericht liegt in bericht.pdf."),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "report",
        AgentConfig(initial_toolboxes=["ai"]),
        alice.context,
        deps(ai, runtime=runtime),
        emit=recorder,
    )

    outcome = results(recorder)
    assert not any(outcome[i]["is_error"] for i in "txcr"), outcome
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        listing = await files.list(limit=50)
        by_name = {f.name: f for f in listing.files}
        assert set(by_name) == {
            "sales.csv",
            "totals.csv",
            "umsatz.png",
            "umsatz.svg",
            "bericht.pdf",
        }
        _, svg = await files.read_text(by_name["umsatz.svg"].id)
        _, pdf_bytes = await files.read_bytes(by_name["bericht.pdf"].id)
    assert "Umsatz je Region" in svg and "Süd" in svg
    assert by_name["bericht.pdf"].mime_type == "application/pdf"
    with pdfplumber.open(io.BytesIO(pdf_bytes)) as pdf:
        page = pdf.pages[0]
        assert "Der Süden liegt zurück." in page.extract_text()
        assert len(page.images) == 1


async def test_vega_lite_subset_and_a_missing_field(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    spec = {
        "mark": {"type": "line"},
        "title": "Besucher",
        "data": {"values": [{"tag": "Mo", "n": 3}, {"tag": "Di", "n": 5}]},
        "encoding": {"x": {"field": "tag"}, "y": {"field": "n"}},
    }
    ai, _ = scripted(
        [
            ScriptedTurn.calls(
                call("create_chart", "v", vega_lite=spec, name="besucher"),
                call("create_chart", "m", type="bar", data=[{"a": 1}], x="a", y="b"),
            ),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "chart",
        AgentConfig(initial_toolboxes=["ai"]),
        alice.context,
        deps(ai, runtime=runtime),
        emit=recorder,
    )

    outcome = results(recorder)
    assert not outcome["v"]["is_error"], outcome["v"]["content"]
    assert [f["name"] for f in json.loads(outcome["v"]["content"])["files"]] == [
        "besucher.png",
        "besucher.svg",
    ]
    assert outcome["m"]["is_error"]
    assert "no field 'b'; the rows have a" in outcome["m"]["content"]

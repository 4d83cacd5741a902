"""`execute_code` through the agent loop on real storage: a pandas computation on a workspace
CSV lands as a new workspace file; without bubblewrap the toolbox is refused with the reason."""

from __future__ import annotations

import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.runtime import Runtime
from agentur.sandbox.run_python import unavailable_reason
from agentur.workspace.files import FileService
from tests.agent.support import Recorder, deps, scripted
from tests.conftest import Tenants
from tests.reread_settings import reread_settings
from tests.tools.test_workspace_tools import results, upload

AGGREGATE = (
    "import pandas as pd\n"
    "df = pd.read_csv('sales.csv')\n"
    "df.groupby('region', as_index=False)['amount'].sum().to_csv('totals.csv', index=False)\n"
    "print(df['amount'].sum())\n"
)


@pytest.mark.skipif(unavailable_reason("bwrap") is not None, reason="no working bubblewrap")
async def test_pandas_output_lands_in_the_workspace(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    sales_id = await upload(runtime, alice, "sales.csv", "region,amount\nNord,10\nSüd,5\nNord,7\n")
    ai, _ = scripted(
        [
            ScriptedTurn.call(
                "request_toolbox", "t", toolbox_id="code", reason="aggregate the sales"
            ),
            ScriptedTurn.call("execute_code", "x", code=AGGREGATE, input_file_ids=[sales_id]),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "sum it", AgentConfig(), alice.context, deps(ai, runtime=runtime), emit=recorder
    )

    outcome = results(recorder)
    assert not outcome["x"]["is_error"], outcome["x"]["content"]
    assert '"stdout": "22\\n"' in outcome["x"]["content"]
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        listing = await files.list(search="totals.csv")
        assert [f.name for f in listing.files] == ["totals.csv"]
        _, text = await files.read_text(listing.files[0].id)
    assert text == "region,amount\nNord,17\nSüd,5\n"


async def test_without_bubblewrap_the_code_toolbox_is_refused_with_the_reason(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTUR_SANDBOX_BWRAP_PATH", "/nonexistent/bwrap")
    reread_settings(runtime)
    alice = await tenants.member()
    ai, provider = scripted(
        [
            ScriptedTurn.call("request_toolbox", "t", toolbox_id="code", reason="compute"),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent(
        "sum it", AgentConfig(), alice.context, deps(ai, runtime=runtime), emit=recorder
    )

    outcome = results(recorder)
    assert outcome["t"]["is_error"]
    assert "'/nonexistent/bwrap' is not installed" in outcome["t"]["content"]
    offered = {tool.name for request in provider.received for tool in request.tools}
    assert "execute_code" not in offered

"""read_url reaches no internal address, however it is spelled, unless the deployment allows it
(`AGENTUR_EGRESS_ALLOWED_HOSTS`, or its deprecated name `AGENTUR_AGENT_EGRESS_ALLOWED_HOSTS`);
a listener on loopback counts every connection."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agentur.agent.settings import AgentSettings
from agentur.agent.tool_round import egress_policy, web_policy
from agentur.ai.messages import ToolCall
from agentur.context import RequestContext, Role
from agentur.tools.read_url import TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from tests.egress.allowed_hosts import reread
from tests.egress.listeners import Listener, listening
from tests.reread_settings import settings_runtime

SPELLINGS = [
    "127.0.0.1",
    "localhost",
    "[::1]",
    "0.0.0.0",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "[::ffff:127.0.0.1]",
]


@pytest.fixture
async def loopback() -> AsyncIterator[Listener]:
    listener = await listening("127.0.0.1")
    yield listener
    await listener.stop()


async def _read(url: str, settings: AgentSettings) -> tuple[bool, str]:
    context = ToolContext(
        request=RequestContext("u1", "m1", Role.member),
        runtime=settings_runtime(),
        web_egress=web_policy(settings),
    )
    outcome = await run_tool(
        TOOLS[0],
        ToolCall("c1", "read_url", {"url": url}),
        context,
        ToolLimits(egress=egress_policy(settings)),
        lambda _: None,
    )
    return outcome.is_error, outcome.content


@pytest.mark.parametrize("host", SPELLINGS)
async def test_no_connection_is_made_without_the_allow_list(
    loopback: Listener, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AGENTUR_EGRESS_ALLOWED_HOSTS", "AGENTUR_AGENT_EGRESS_ALLOWED_HOSTS"):
        monkeypatch.delenv(name, raising=False)
    reread(monkeypatch)
    failed, content = await _read(f"http://{host}:{loopback.port}/", AgentSettings())
    assert failed and content.startswith("error:")
    assert loopback.connections == 0


@pytest.mark.parametrize(
    "setting", ["AGENTUR_EGRESS_ALLOWED_HOSTS", "AGENTUR_AGENT_EGRESS_ALLOWED_HOSTS"]
)
async def test_the_allowed_host_is_reached(
    loopback: Listener, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    monkeypatch.setenv(setting, f"127.0.0.1:{loopback.port}")
    reread(monkeypatch)  # the process's list, as a start reads it
    failed, content = await _read(f"http://127.0.0.1:{loopback.port}/page", AgentSettings())
    assert loopback.connections == 1 and loopback.requests[0].startswith(b"GET /page ")
    # The listener answers without a content type: reached, and refused for what it sent.
    assert failed and "no declared content type" in content


async def test_the_web_caps_come_from_their_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTUR_WEB_MAX_BYTES", "1234")
    monkeypatch.setenv("AGENTUR_WEB_TIMEOUT_SECONDS", "2.5")
    policy = web_policy(AgentSettings())
    assert (policy.max_bytes, policy.timeout_seconds) == (1234, 2.5)

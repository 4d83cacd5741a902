"""Every connection kind follows the one egress rule (README, "Egress: what is refused"): a target
the rule refuses is refused when saved (422 naming the setting and the rule) and again at every
connect (a row saved by an older version, or a listing the operator removed), whatever its
spelling; a redirect from a listed service to an unlisted one is not followed; a listed target
is reached. Listeners on loopback (IPv4 and IPv6) count every connection, so "refused" means
that not one packet of a connection reached them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import update

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.check_connection import graph_access
from agentur.connections.graph_client import list_children
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.errors import AgenturError
from agentur.runtime import Runtime
from agentur.storage.models.connections import Connection
from tests.agent.support import Recorder, call, deps, scripted
from tests.api.files_helpers import assert_problem
from tests.conftest import Tenants
from tests.connections.graph_server import CLIENT_ID, CLIENT_SECRET, DRIVE, graph_server
from tests.connections.json_server import JsonHandler, serving
from tests.egress.allowed_hosts import SETTING, allow, reread
from tests.egress.listeners import Listener, listening, redirect

# Every address class and spelling the rule refuses, as the host part of a URL.
SPELLINGS = [
    "127.0.0.1",
    "0177.0.0.1",
    "0x7f000001",
    "2130706433",
    "127.1",
    "localhost",
    "LOCALHOST.",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "169.254.169.254",  # cloud metadata
    "100.100.100.200",  # carrier-grade NAT metadata
    "[fd00:ec2::254]",  # AWS metadata over IPv6 (ULA)
    "[2002:7f00:1::]",  # 6to4 embedding 127.0.0.1
    "[64:ff9b::7f00:1]",  # NAT64 embedding 127.0.0.1
    "0.0.0.0",
    "[::]",
    "10.0.0.1",
    "192.168.1.1",
]
FILE_URL = "file:///etc/passwd"
# What a refusal by the rule says (the reason names the address class or the spelling).
REFUSAL_WORDS = (
    "is not allowed",
    "internal host name",
    "non-standard form",
    "numeric label",
    "only http and https",
    "not a valid host name",
)
PUBLIC = "https://service.example.com"  # does not resolve here: accepted, never reached


Server = tuple[str, int]  # a mail server's host and port
# The mail server a mail connection names besides the one under test: it does not resolve here.
ELSEWHERE: Server = ("mail.example.com", 993)


@dataclass(frozen=True)
class Variant:
    kind: str
    field: str  # the setting that names the target
    # (URL root, bare host, the other mail server) -> settings
    settings: Callable[[str, str, Server], dict[str, Any]]


def _mail(imap: Server, smtp: Server) -> dict[str, Any]:
    return {
        "username": "u", "from_address": "u@acme.test",
        "imap_host": imap[0], "imap_port": imap[1], "imap_security": "none",
        "smtp_host": smtp[0], "smtp_port": smtp[1], "smtp_security": "none",
    }  # fmt: skip


def _server(root: str, host: str) -> Server:
    return host, (root.startswith("http://") and urlsplit(root).port) or 993


def _microsoft(**urls: str) -> dict[str, Any]:
    return {"tenant_id": "t", "client_id": "c", **urls}


VARIANTS = {
    "webdav": Variant("webdav", "base_url", lambda root, *_: {"base_url": f"{root}/dav/"}),
    "jira": Variant("jira", "base_url", lambda root, *_: {"base_url": root, "email": "a@b.ch"}),
    "clickup": Variant("clickup", "base_url", lambda root, *_: {"base_url": f"{root}/api/v2/"}),
    "microsoft-token": Variant(
        "microsoft", "token_url", lambda root, *_: _microsoft(token_url=f"{root}/{{tenant_id}}")
    ),
    "microsoft-graph": Variant(
        "microsoft", "graph_url", lambda root, *_: _microsoft(graph_url=f"{root}/v1.0/")
    ),
    "mcp": Variant("mcp", "url", lambda root, *_: {"url": f"{root}/mcp"}),
    "mail-imap": Variant(
        "mail", "imap_host", lambda root, host, other: _mail(_server(root, host), other)
    ),
    "mail-smtp": Variant(
        "mail", "smtp_host", lambda root, host, other: _mail(other, _server(root, host))
    ),
}
HTTP_VARIANTS = ["webdav", "jira", "clickup", "microsoft-token", "mcp"]
# The `test` action of a Microsoft connection signs in only; its Graph URL is covered below.
TESTED_VARIANTS = [name for name in VARIANTS if name != "microsoft-graph"]


@dataclass
class Loopback:
    v4: Listener
    v6: Listener

    @property
    def connections(self) -> int:
        return self.v4.connections + self.v6.connections

    def root(self, spelling: str) -> tuple[str, str]:
        """(URL root, bare host) for `spelling`, on a listener's port where one could answer."""
        if spelling == FILE_URL:
            return FILE_URL, FILE_URL
        port = self.v6.port if spelling == "[::1]" else self.v4.port
        return f"http://{spelling}:{port}", spelling


@pytest.fixture
async def loopback() -> AsyncIterator[Loopback]:
    v4 = await listening("127.0.0.1")
    v6 = await listening("::1")
    yield Loopback(v4, v6)
    await v4.stop()
    await v6.stop()


def body(variant: Variant, settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": variant.kind,
        "display_name": "Target",
        "settings": settings,
        "credentials": {"password": "secret"},
    }


def spelled(
    variant: Variant, loopback: Loopback, spelling: str, other: Server = ELSEWHERE
) -> dict[str, Any]:
    return variant.settings(*loopback.root(spelling), other)


@pytest.mark.parametrize("name", VARIANTS)
async def test_every_spelling_is_refused_when_saved(
    client: httpx.AsyncClient,
    tenants: Tenants,
    loopback: Loopback,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
) -> None:
    monkeypatch.delenv(SETTING, raising=False)
    reread(monkeypatch)
    variant = VARIANTS[name]
    alice = await tenants.member("acme")
    kept = variant.settings(PUBLIC, "mail.example.com", ELSEWHERE)
    created = await client.post("/v1/connections", json=body(variant, kept), headers=alice.headers)
    assert created.status_code == 201, created.text
    connection_id = created.json()["id"]

    for spelling in [*SPELLINGS, FILE_URL]:
        settings = spelled(variant, loopback, spelling)
        for response in (
            await client.post(
                "/v1/connections", json=body(variant, settings), headers=alice.headers
            ),
            await client.patch(
                f"/v1/connections/{connection_id}",
                json={"settings": settings},
                headers=alice.headers,
            ),
        ):
            problem = assert_problem(response, 422, variant.field)
            assert any(word in problem["detail"] for word in REFUSAL_WORDS), (spelling, problem)
            if "is not allowed" in problem["detail"]:  # the rule and how to make an exception
                assert "AGENTUR_EGRESS_ALLOWED_HOSTS" in problem["detail"]

    listed = (await client.get("/v1/connections", headers=alice.headers)).json()
    assert [c["id"] for c in listed] == [connection_id]
    assert listed[0]["settings"][variant.field] == created.json()["settings"][variant.field]
    assert loopback.connections == 0


async def _store_settings(runtime: Runtime, connection_id: str, settings: dict[str, Any]) -> None:
    """Write settings as an older version might have saved them, past today's save checks."""
    async with runtime.database.transaction() as session:
        await session.execute(
            update(Connection)
            .where(Connection.id == connection_id)
            .values(settings_json=json.dumps(settings), status="untested")
        )


@pytest.mark.parametrize("name", TESTED_VARIANTS)
async def test_every_connect_checks_again_and_a_listed_target_is_reached(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    loopback: Loopback,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
) -> None:
    variant = VARIANTS[name]
    alice = await tenants.member("acme")
    # A mail connection's other server is a listed one: only the target under test is refused.
    companion = await listening("127.0.0.1")
    other: Server = ("127.0.0.1", companion.port)
    try:
        root, host = loopback.root("127.0.0.1")
        allow(monkeypatch, loopback.v4.port, companion.port)  # as the README tells an operator
        listed = variant.settings(root, host, other)
        created = await client.post(
            "/v1/connections", json=body(variant, listed), headers=alice.headers
        )
        assert created.status_code == 201, created.text
        connection_id = created.json()["id"]

        allow_only = {SETTING: f"127.0.0.1:{companion.port}"}
        monkeypatch.setenv(SETTING, allow_only[SETTING])  # the listener's listing taken back
        reread(monkeypatch)
        for spelling in [*SPELLINGS, FILE_URL]:
            await _store_settings(
                runtime, connection_id, spelled(variant, loopback, spelling, other)
            )
            tested = await client.post(
                f"/v1/connections/{connection_id}/test", headers=alice.headers
            )
            assert tested.json()["status"] == "failed", (spelling, tested.text)
            error = tested.json()["last_error"]
            assert any(word in error for word in REFUSAL_WORDS), (spelling, error)
        # Every server of a connection is checked before the first connect: not even the
        # listed companion was contacted.
        assert loopback.connections == 0 and companion.connections == 0

        # Listed again: the same connection reaches the listener (which speaks no protocol, so
        # the test fails — after connecting). IMAP waits for a greeting: the listener sends one.
        loopback.v4.greeting = companion.greeting = b"* BYE not a real server\r\n"
        allow(monkeypatch, loopback.v4.port)
        await _store_settings(runtime, connection_id, listed)
        tested = await client.post(f"/v1/connections/{connection_id}/test", headers=alice.headers)
        assert tested.json()["status"] == "failed"
        reached = loopback.v4.connections + (companion.connections if name == "mail-smtp" else 0)
        assert reached >= 1, tested.json()["last_error"]
    finally:
        await companion.stop()


async def test_the_graph_url_is_checked_at_every_connect(
    runtime: Runtime, tenants: Tenants, loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Signed in at a listed identity platform, the Graph calls of the SharePoint tools still
    reach no unlisted Graph URL."""
    alice = await tenants.member("acme")
    with graph_server() as (base, state):
        allow(monkeypatch, base)
        settings = {"tenant_id": "t", "client_id": CLIENT_ID, "token_url": f"{base}/token"}
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            connection = await service.create(
                "microsoft", "M365", settings, Credentials(password=CLIENT_SECRET)
            )
            await service.commit()
            for spelling in [*SPELLINGS, FILE_URL]:
                graph_url = spelled(VARIANTS["microsoft-graph"], loopback, spelling)["graph_url"]
                await _store_settings(runtime, connection.id, {**settings, "graph_url": graph_url})
                await session.refresh(connection)
                with pytest.raises(AgenturError) as refused:
                    access = graph_access(service, connection, 5.0, 1_000)
                    await list_children(access, DRIVE, None, None)
                assert any(word in refused.value.detail for word in REFUSAL_WORDS), spelling
    assert state.token_requests  # signed in, then stopped at the Graph URL
    assert loopback.connections == 0


@pytest.mark.parametrize("name", HTTP_VARIANTS)
@pytest.mark.parametrize(
    "location", ["http://127.0.0.1:{port}/", "http://0x7f000001:{port}/", "http://[::1]:{v6}/"]
)
async def test_a_redirect_from_a_listed_service_to_an_unlisted_one_is_not_followed(
    client: httpx.AsyncClient,
    tenants: Tenants,
    loopback: Loopback,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    location: str,
) -> None:
    variant = VARIANTS[name]
    alice = await tenants.member("acme")
    target = location.format(port=loopback.v4.port, v6=loopback.v6.port)
    outer = await listening("127.0.0.1", redirect(target))
    try:
        allow(monkeypatch, outer.port)  # only the outer service is listed
        root = f"http://127.0.0.1:{outer.port}"
        created = await client.post(
            "/v1/connections",
            json=body(variant, variant.settings(root, "", ELSEWHERE)),
            headers=alice.headers,
        )
        assert created.status_code == 201, created.text
        tested = await client.post(
            f"/v1/connections/{created.json()['id']}/test", headers=alice.headers
        )
        assert tested.json()["status"] == "failed"
        assert outer.connections >= 1  # the listed service was asked
        assert loopback.connections == 0  # the redirect target never was
    finally:
        await outer.stop()


async def test_a_tool_download_from_an_internal_source_gets_nothing(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's path: a WebDAV source on loopback, saved while listed, then unlisted — the
    agent's download tool reaches nothing and saves nothing."""
    reached: list[str] = []

    class Internal(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802
            reached.append(self.path)
            self.reply(200, {"secret": "internal"})

    alice = await tenants.member("acme")
    with serving(Internal) as port:
        allow(monkeypatch, port)
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            settings = {"base_url": f"http://127.0.0.1:{port}/"}
            await service.create("webdav", "Share", settings, Credentials(password="p"))
            await service.commit()
        monkeypatch.delenv(SETTING)
        reread(monkeypatch)
        ai, _ = scripted(
            [
                ScriptedTurn.calls(call("download_to_workspace", "d", path="latest/meta-data")),
                ScriptedTurn(text="done"),
            ]
        )
        recorder = Recorder()
        await run_agent("go", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                        emit=recorder)  # fmt: skip
    [result] = recorder.of(EventType.tool_result)
    assert result["is_error"] and "loopback" in result["content"], result["content"]
    assert reached == []

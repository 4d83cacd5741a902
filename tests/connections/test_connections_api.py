"""/v1/connections against real IMAP and SMTP servers: credentials are write-only, the `test`
action logs in for real, tenants and roles are kept apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentur.context import Role
from tests.conftest import Tenants
from tests.connections.mail_servers import (
    IMAP_PASSWORD,
    imap_server,
    mail_settings,
    smtp_server,
)
from tests.connections.webdav_server import DAV_PASSWORD, DAV_USER, webdav_server
from tests.egress.allowed_hosts import allow


@pytest.fixture
def ports(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, int]]:
    with imap_server() as imap_port, smtp_server() as (smtp_port, _):
        allow(monkeypatch, imap_port, smtp_port)
        yield imap_port, smtp_port


def mail_body(imap_port: int, smtp_port: int, password: str, **extra: object) -> dict:
    return {
        "kind": "mail",
        "display_name": "Office",
        "settings": mail_settings(imap_port, smtp_port),
        "credentials": {"password": password},
        **extra,
    }


async def test_crud_and_test_action_never_return_credentials(
    client: httpx.AsyncClient, tenants: Tenants, ports: tuple[int, int]
) -> None:
    alice = await tenants.member("acme")
    created = await client.post(
        "/v1/connections", json=mail_body(*ports, "wrong-password"), headers=alice.headers
    )
    assert created.status_code == 201, created.text
    connection = created.json()
    assert connection["status"] == "untested" and connection["shared"] is False
    assert "credentials" not in connection and "wrong-password" not in created.text

    failed = await client.post(f"/v1/connections/{connection['id']}/test", headers=alice.headers)
    assert failed.json()["status"] == "failed"
    assert "IMAP 127.0.0.1" in failed.json()["last_error"]
    assert "wrong-password" not in failed.text

    changed = await client.patch(
        f"/v1/connections/{connection['id']}",
        json={"credentials": {"password": IMAP_PASSWORD}, "neutralize": True},
        headers=alice.headers,
    )
    assert changed.json()["status"] == "untested" and changed.json()["neutralize"] is True
    tested = await client.post(f"/v1/connections/{connection['id']}/test", headers=alice.headers)
    assert tested.json()["status"] == "ok" and tested.json()["last_error"] is None

    listed = await client.get("/v1/connections", headers=alice.headers)
    assert [c["id"] for c in listed.json()] == [connection["id"]]
    assert IMAP_PASSWORD not in listed.text and IMAP_PASSWORD not in tested.text

    deleted = await client.delete(f"/v1/connections/{connection['id']}", headers=alice.headers)
    assert deleted.status_code == 204
    gone = await client.get(f"/v1/connections/{connection['id']}", headers=alice.headers)
    assert gone.status_code == 404


async def test_tenants_roles_and_bad_settings(
    client: httpx.AsyncClient, tenants: Tenants, ports: tuple[int, int]
) -> None:
    admin = await tenants.member("acme", Role.admin)
    member = await tenants.member("acme")
    mallory = await tenants.member("evil", Role.admin)
    forbidden = await client.post(
        "/v1/connections", json=mail_body(*ports, "x", shared=True), headers=member.headers
    )
    assert forbidden.status_code == 403
    assert "mandate admins" in forbidden.json()["detail"]
    shared = await client.post(
        "/v1/connections", json=mail_body(*ports, "x", shared=True), headers=admin.headers
    )
    assert shared.status_code == 201 and shared.json()["shared"] is True
    shared_id = shared.json()["id"]

    seen_by_member = await client.get("/v1/connections", headers=member.headers)
    assert [c["id"] for c in seen_by_member.json()] == [shared_id]
    change = await client.patch(
        f"/v1/connections/{shared_id}", json={"display_name": "mine"}, headers=member.headers
    )
    assert change.status_code == 403
    for method in ("GET", "PATCH", "DELETE"):
        stolen = await client.request(
            method, f"/v1/connections/{shared_id}", json={}, headers=mallory.headers
        )
        assert stolen.status_code == 404, (method, stolen.text)
    assert (await client.get("/v1/connections", headers=mallory.headers)).json() == []

    bad_kind = await client.post(
        "/v1/connections", json={**mail_body(*ports, "x"), "kind": "fax"}, headers=admin.headers
    )
    assert bad_kind.status_code == 422 and "kind: Input should be 'clickup'" in bad_kind.text
    body = mail_body(*ports, "x")
    body["settings"]["imap_port"] = 70000
    bad_port = await client.post("/v1/connections", json=body, headers=admin.headers)
    assert bad_port.status_code == 422 and "imap_port" in bad_port.json()["detail"]


async def test_webdav_test_action(
    client: httpx.AsyncClient, tenants: Tenants, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    with webdav_server(tmp_path) as base_url:
        allow(monkeypatch, base_url)
        for password, status in ((DAV_PASSWORD, "ok"), ("wrong", "failed")):
            created = await client.post(
                "/v1/connections",
                json={"kind": "webdav", "display_name": "Share",
                      "settings": {"base_url": base_url, "username": DAV_USER},
                      "credentials": {"password": password}},
                headers=alice.headers,
            )  # fmt: skip
            tested = await client.post(
                f"/v1/connections/{created.json()['id']}/test", headers=alice.headers
            )
            assert tested.json()["status"] == status, tested.text
    assert "refused PROPFIND / (401)" in tested.json()["last_error"]

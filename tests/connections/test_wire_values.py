"""Nothing user-supplied reaches a wire protocol unchecked: a CR, LF or NUL in any setting or
credential of any connection kind is a 422 naming the field — on create and on change — and
nothing is stored. (What a crafted value would do on the wire: tests/connections/
test_imap_login.py, against a real IMAP server.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from agentur.connections.connection_kind import connection_kinds
from tests.api.files_helpers import assert_problem
from tests.conftest import Tenants

# Valid settings of each kind, naming servers that do not resolve here (never reached).
VALID: dict[str, dict[str, Any]] = {
    "mail": {
        "username": "ann",
        "from_address": "ann@acme.test",
        "imap_host": "imap.acme.test",
        "smtp_host": "smtp.acme.test",
    },  # fmt: skip
    "webdav": {"base_url": "https://dav.acme.test/remote.php/dav/", "username": "ann"},
    "jira": {"base_url": "https://acme.atlassian.test", "email": "ann@acme.test"},
    "clickup": {"base_url": "https://api.clickup.test/api/v2/"},
    "microsoft": {"tenant_id": "contoso", "client_id": "app-1"},
    "mcp": {"url": "https://mcp.acme.test/mcp"},
}
BAD = {"CR": "\r", "LF": "\n", "NUL": "\x00"}


def string_fields(kind: str) -> list[str]:
    model = connection_kinds()[kind].settings
    return [name for name, field in model.model_fields.items() if field.annotation is str]


CASES = [(kind, field) for kind in VALID for field in string_fields(kind)]


def test_every_kind_has_valid_settings_here() -> None:
    assert set(VALID) == set(connection_kinds())


@pytest.mark.parametrize(("kind", "field"), CASES)
async def test_a_line_break_or_nul_in_any_setting_is_422(
    client: httpx.AsyncClient, tenants: Tenants, kind: str, field: str
) -> None:
    alice = await tenants.member()
    valid = {"kind": kind, "display_name": "Source", "settings": VALID[kind]}
    created = await client.post("/v1/connections", json=valid, headers=alice.headers)
    assert created.status_code == 201, created.text
    url = f"/v1/connections/{created.json()['id']}"
    for name, char in BAD.items():
        value = str(created.json()["settings"][field]) + char + "X1 LOGOUT"
        settings = {**VALID[kind], field: value}
        posted = await client.post(
            "/v1/connections", json={**valid, "settings": settings}, headers=alice.headers
        )
        assert_problem(posted, 422, field)
        patched = await client.patch(url, json={"settings": {field: value}}, headers=alice.headers)
        problem = assert_problem(patched, 422, field)
        # The wire rule names the character; host and URL parsers refuse it their own way.
        reasons = (name, "not a valid", "control characters")
        assert any(reason in problem["detail"] for reason in reasons), problem
    stored = (await client.get(url, headers=alice.headers)).json()
    assert stored["settings"] == created.json()["settings"]
    listed = (await client.get("/v1/connections", headers=alice.headers)).json()
    assert len(listed) == 1


@pytest.mark.parametrize("kind", VALID)
async def test_a_line_break_or_nul_in_a_credential_is_422(
    client: httpx.AsyncClient, tenants: Tenants, kind: str
) -> None:
    alice = await tenants.member()
    valid = {"kind": kind, "display_name": "Source", "settings": VALID[kind]}
    created = await client.post("/v1/connections", json=valid, headers=alice.headers)
    url = f"/v1/connections/{created.json()['id']}"
    for name, char in BAD.items():
        credentials = {"password": f"secret{char}X1 DELETE INBOX"}
        posted = await client.post(
            "/v1/connections", json={**valid, "credentials": credentials}, headers=alice.headers
        )
        assert_problem(posted, 422, "credentials.password", name)
        patched = await client.patch(url, json={"credentials": credentials}, headers=alice.headers)
        assert_problem(patched, 422, "credentials.password", name)
    # A tab, quotes and backslashes are fine in a password (and long ones are bounded).
    fine = await client.patch(
        url, json={"credentials": {"password": 'a\tb"c\\d'}}, headers=alice.headers
    )
    assert fine.status_code == 200, fine.text
    too_long = await client.patch(
        url, json={"credentials": {"password": "x" * 4097}}, headers=alice.headers
    )
    assert_problem(too_long, 422, "credentials.password")

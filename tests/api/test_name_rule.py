"""One name rule for everything a user names (README, "Workspace rules" → Names): over every
create and rename route, a NUL, a right-to-left override and a 10,000-character name are 422
naming the field; a name sent decomposed (NFD) is stored composed (NFC)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from agentur.context import Role
from tests.api.files_helpers import assert_problem
from tests.assistant.definitions import shop_definition
from tests.conftest import Member, Tenants

NFD = "Cafe\u0301 Zu\u0308rich"  # what macOS file dialogs send
NFC = "Café Zürich"
REFUSED = {
    "NUL": ("Office\x00mail", "U+0000"),
    "right-to-left override": ("invoice\u202etxt.exe", "U+202E"),
    "10,000 characters": ("x" * 10_000, "characters"),
}

Send = Callable[[httpx.AsyncClient, Member, dict[str, Any], str], Awaitable[httpx.Response]]


@dataclass(frozen=True)
class Route:
    field: str  # the field a 422 names
    prepare: Callable[[httpx.AsyncClient, Member], Awaitable[dict[str, Any]]]
    send: Send
    stored: Callable[[httpx.Response], str]  # the name as the answer shows it
    role: Role = Role.member


async def _nothing(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    return {}


async def _file(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    uploaded = await client.post(
        "/v1/files", files={"file": ("a.txt", b"hi")}, headers=member.headers
    )
    return {"file": uploaded.json()["id"]}


async def _folder(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    made = await client.post("/v1/folders", json={"name": "Inbox"}, headers=member.headers)
    return {"folder": made.json()["id"]}


async def _connection(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    made = await client.post(
        "/v1/connections", json=_connection_body("Mail"), headers=member.headers
    )
    return {"connection": made.json()["id"]}


async def _assistant(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    made = await client.post("/v1/assistants", json=shop_definition(), headers=member.headers)
    return {"assistant": made.json()["id"]}


def _connection_body(name: str) -> dict[str, Any]:
    settings = {"base_url": "https://dav.acme.test/dav/", "username": "ann"}
    return {"kind": "webdav", "display_name": name, "settings": settings}


def _faq(name: str) -> dict[str, Any]:
    return {"question": name, "answer": "Yes."}


def _flow(name: str) -> dict[str, Any]:
    return {"name": name, "steps": [{"kind": "say", "text": "Hello."}]}


def _desk(name: str) -> dict[str, Any]:
    return {"name": name, "options": [{"kind": "email", "address": "desk@acme.test"}]}


def _item_routes(path: str, body: Callable[[str], dict[str, Any]], field: str) -> dict[str, Route]:
    async def add(client, member, ids, name):  # type: ignore[no-untyped-def]
        url = f"/v1/assistants/{ids['assistant']}/{path}"
        return await client.post(url, json=body(name), headers=member.headers)

    async def replace(client, member, ids, name):  # type: ignore[no-untyped-def]
        url = f"/v1/assistants/{ids['assistant']}/{path}"
        first = (await client.get(url, headers=member.headers)).json()[0]["id"]
        return await client.put(f"{url}/{first}", json=body(name), headers=member.headers)

    return {
        f"POST assistant {path}": Route(field, _assistant, add, lambda r: r.json()[field]),
        f"PUT assistant {path}": Route(field, _assistant, replace, lambda r: r.json()[field]),
    }


def _json(
    method: str,
    path: str,
    field: str,
    prepare: Callable[[httpx.AsyncClient, Member], Awaitable[dict[str, Any]]] = _nothing,
    body: Callable[[str], dict[str, Any]] | None = None,
    role: Role = Role.member,
) -> Route:
    """A JSON request to `path` (formatted with the prepared ids) naming the thing `field`."""

    async def send(client, member, ids, name):  # type: ignore[no-untyped-def]
        json = body(name) if body else {field: name}
        return await client.request(method, path.format(**ids), json=json, headers=member.headers)

    return Route(field, prepare, send, lambda r: r.json()[field], role)


async def _upload(client, member, ids, name):  # type: ignore[no-untyped-def]
    file = {"file": ("upload.txt", b"hi")}
    return await client.post("/v1/files", files=file, data={"name": name}, headers=member.headers)


ROUTES: dict[str, Route] = {
    "POST /v1/files (upload name)": Route("name", _nothing, _upload, lambda r: r.json()["name"]),
    "PATCH /v1/files/{id}": _json("PATCH", "/v1/files/{file}", "name", _file),
    "POST /v1/files/{id}/copy": _json("POST", "/v1/files/{file}/copy", "name", _file),
    "POST /v1/folders": _json("POST", "/v1/folders", "name"),
    "PATCH /v1/folders/{id}": _json("PATCH", "/v1/folders/{folder}", "name", _folder),
    "POST /v1/connections": _json("POST", "/v1/connections", "display_name", body=_connection_body),
    "PATCH /v1/connections/{id}": _json(
        "PATCH", "/v1/connections/{connection}", "display_name", _connection
    ),
    "POST /v1/assistants": _json(
        "POST", "/v1/assistants", "name", body=lambda name: shop_definition(name=name)
    ),
    "PUT /v1/assistants/{id}": _json(
        "PUT",
        "/v1/assistants/{assistant}",
        "name",
        _assistant,
        body=lambda name: shop_definition(name=name),
    ),
    **_item_routes("faqs", _faq, "question"),
    **_item_routes("flows", _flow, "name"),
    **_item_routes("help-desks", _desk, "name"),
    "POST /v1/features/instances": _json(
        "POST",
        "/v1/features/instances",
        "name",
        body=lambda name: {"feature_code": "trustee", "name": name},
        role=Role.admin,
    ),
    "POST /v1/workflows": _json("POST", "/v1/workflows", "title"),
}


@pytest.mark.parametrize("route_name", ROUTES)
async def test_the_name_rule_holds_on_every_create_and_rename_route(
    client: httpx.AsyncClient, tenants: Tenants, route_name: str
) -> None:
    route = ROUTES[route_name]
    member = await tenants.member(role=route.role)
    ids = await route.prepare(client, member)
    for case, (name, named) in REFUSED.items():
        refused = await route.send(client, member, ids, name)
        problem = assert_problem(refused, 422, route.field)
        assert named in problem["detail"], (case, problem["detail"])
    accepted = await route.send(client, member, ids, f"  {NFD} ")
    assert accepted.status_code in (200, 201), accepted.text
    assert route.stored(accepted) == NFC

"""/v1/sessions: the web app's cookie sign-in — cookie flags, CSRF, mandate switching,
sign-out, and keys revoked or sessions expired while a browser is signed in."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from agentur.accounts.api_keys import revoke_api_key
from agentur.runtime import Runtime
from agentur.storage.models import ApiKey, WebSession, utc_now
from tests.api.files_helpers import assert_problem
from tests.conftest import Member, Tenants

COOKIE = "agentur_session"


async def sign_in(client: httpx.AsyncClient, member: Member) -> dict[str, str]:
    response = await client.post("/v1/sessions", json={"api_key": member.key})
    assert response.status_code == 201, response.text
    return response.json()


async def session_count(runtime: Runtime) -> int:
    async with runtime.database.session() as db:
        return int(await db.scalar(select(func.count()).select_from(WebSession)) or 0)


async def revoke(runtime: Runtime, member: Member) -> None:
    lookup_id = member.key.split("_")[1]
    async with runtime.database.transaction() as db:
        key_id = await db.scalar(select(ApiKey.id).where(ApiKey.lookup_id == lookup_id))
        assert key_id is not None
        await revoke_api_key(db, key_id)


async def test_sign_in_sets_a_strict_httponly_cookie_and_stores_only_its_hash(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    response = await client.post("/v1/sessions", json={"api_key": alice.key})
    assert response.status_code == 201, response.text
    set_cookie = response.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in set_cookie.split(";")}
    assert {"httponly", "path", "max-age"} <= attributes
    assert "samesite=strict" in set_cookie.lower()
    assert f"Max-Age={runtime.settings.session_max_age_seconds}" in set_cookie
    assert "secure" not in attributes  # plain http here; see the https test
    body = response.json()
    assert body["mandate_id"] == alice.mandate_id
    assert body["user_id"] == alice.user_id
    assert [item["name"] for item in body["mandates"]] == ["acme"]
    token = client.cookies[COOKIE]
    async with runtime.database.session() as db:
        stored = (await db.scalars(select(WebSession.token_hash))).all()
    assert stored == [hashlib.sha256(token.encode()).hexdigest()]
    assert token not in body.values()
    me = await client.get("/v1/me")
    assert me.status_code == 200, me.text
    assert me.json()["mandate_id"] == alice.mandate_id
    current = await client.get("/v1/sessions/current")
    assert current.json()["csrf_token"] == body["csrf_token"]


async def test_a_wrong_key_gets_no_session(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    response = await client.post("/v1/sessions", json={"api_key": alice.key + "x"})
    assert_problem(response, 401, "invalid, expired or revoked API key")
    assert "set-cookie" not in response.headers
    assert await session_count(runtime) == 0
    assert_problem(await client.get("/v1/me"), 401, "POST /v1/sessions")


async def test_unsafe_requests_need_the_csrf_token(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    csrf = (await sign_in(client, alice))["csrf_token"]
    folder = {"name": "Offers"}
    assert_problem(await client.post("/v1/folders", json=folder), 403, "X-CSRF-Token")
    wrong = await client.post("/v1/folders", json=folder, headers={"X-CSRF-Token": csrf[:-1]})
    assert_problem(wrong, 403, "X-CSRF-Token")
    assert (await client.get("/v1/folders")).json() == []
    created = await client.post("/v1/folders", json=folder, headers={"X-CSRF-Token": csrf})
    assert created.status_code == 201, created.text
    assert [item["name"] for item in (await client.get("/v1/folders")).json()] == ["Offers"]


async def test_a_csrf_header_outside_ascii_is_refused_not_a_server_error(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    await sign_in(client, alice)
    # HTTP header bytes arrive as latin-1 text; hmac.compare_digest refuses non-ASCII str
    for sent in (b"\xe9t\xe9", "é".encode()):
        response = await client.post(
            "/v1/folders", json={"name": "x"}, headers={"X-CSRF-Token": sent}
        )
        assert_problem(response, 403, "X-CSRF-Token")


async def test_over_https_the_cookie_is_secure_and_host_only(
    app: FastAPI, tenants: Tenants
) -> None:
    """`__Host-`: the browser takes the cookie only Secure, Path=/, without Domain and from
    this host, so a sibling subdomain can neither plant nor overwrite it (cookie tossing)."""
    alice = await tenants.member("acme")
    mallory = await tenants.member("evilcorp")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://agentur.test") as client:
        response = await client.post("/v1/sessions", json={"api_key": alice.key})
        assert response.status_code == 201, response.text
        set_cookie = response.headers["set-cookie"]
        assert set_cookie.startswith(f"__Host-{COOKIE}=")
        attributes = {part.strip().lower() for part in set_cookie.split(";")}
        assert {"secure", "path=/", "httponly"} <= attributes
        assert not any(part.startswith("domain") for part in attributes)
        assert (await client.get("/v1/me")).json()["mandate_id"] == alice.mandate_id
        csrf = {"X-CSRF-Token": response.json()["csrf_token"]}
        signed_out = await client.delete("/v1/sessions/current", headers=csrf)
        assert signed_out.status_code == 204, signed_out.text
        assert signed_out.headers["set-cookie"].startswith(f"__Host-{COOKIE}=")
        assert "secure" in signed_out.headers["set-cookie"].lower()
        # a plainly named cookie, as a sibling subdomain could set one, is not read
        await sign_in(client, mallory)
        planted = client.cookies[f"__Host-{COOKIE}"]
        client.cookies.clear()
        client.cookies.set(COOKIE, planted, domain="agentur.test")
        assert_problem(await client.get("/v1/me"), 401, "POST /v1/sessions")


async def test_another_sites_page_cannot_sign_a_browser_in(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    response = await client.post(
        "/v1/sessions", json={"api_key": alice.key}, headers={"Origin": "https://evil.example"}
    )
    assert_problem(response, 403, "https://evil.example")
    assert await session_count(runtime) == 0
    same = await client.post(
        "/v1/sessions", json={"api_key": alice.key}, headers={"Origin": "http://agentur.test"}
    )
    assert same.status_code == 201, same.text


async def test_mandate_switcher_holds_only_mandates_whose_key_was_signed_in(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    outsider = await tenants.member("initech")
    csrf = {"X-CSRF-Token": (await sign_in(client, alice))["csrf_token"]}
    # adding a key is an unsafe request like any other
    refused = await client.post("/v1/sessions/current/keys", json={"api_key": bob.key})
    assert_problem(refused, 403, "X-CSRF-Token")
    added = await client.post("/v1/sessions/current/keys", json={"api_key": bob.key}, headers=csrf)
    assert added.status_code == 200, added.text
    assert added.json()["mandate_id"] == bob.mandate_id
    assert sorted(item["name"] for item in added.json()["mandates"]) == ["acme", "globex"]
    assert (await client.get("/v1/me")).json()["mandate_id"] == bob.mandate_id

    switched = await client.put(
        "/v1/sessions/current/mandate", json={"mandate_id": alice.mandate_id}, headers=csrf
    )
    assert switched.status_code == 200, switched.text
    me = (await client.get("/v1/me")).json()
    assert (me["mandate_id"], me["user_id"]) == (alice.mandate_id, alice.user_id)

    # a mandate without its key is never granted
    foreign = await client.put(
        "/v1/sessions/current/mandate", json={"mandate_id": outsider.mandate_id}, headers=csrf
    )
    assert_problem(foreign, 404, outsider.mandate_id, "add one of its keys")
    assert (await client.get("/v1/me")).json()["mandate_id"] == alice.mandate_id
    bad_key = await client.post(
        "/v1/sessions/current/keys", json={"api_key": "agt_nope_nope"}, headers=csrf
    )
    # a bad key in the form is bad input; the session itself goes on
    assert_problem(bad_key, 422, "api_key: invalid, expired or revoked API key")
    assert (await client.get("/v1/me")).json()["mandate_id"] == alice.mandate_id


async def test_each_tab_acts_in_the_mandate_it_names(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """The active mandate is the session's, shared by the browser's tabs: a tab still showing
    acme after another tab switched to globex names acme (X-Mandate) and stays in acme."""
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    outsider = await tenants.member("initech")
    csrf = (await sign_in(client, alice))["csrf_token"]
    added = await client.post(
        "/v1/sessions/current/keys", json={"api_key": bob.key}, headers={"X-CSRF-Token": csrf}
    )
    assert added.json()["mandate_id"] == bob.mandate_id  # "the other tab" switched
    acme_tab = {"X-CSRF-Token": csrf, "X-Mandate": alice.mandate_id}
    created = await client.post("/v1/folders", json={"name": "Acme only"}, headers=acme_tab)
    assert created.status_code == 201, created.text
    acme_folders = await client.get("/v1/folders", headers=acme_tab)
    assert [item["name"] for item in acme_folders.json()] == ["Acme only"]
    assert (await client.get("/v1/folders")).json() == []  # globex, the session's active one
    assert (await client.get("/v1/me", headers=acme_tab)).json()["mandate_id"] == alice.mandate_id
    current = await client.get("/v1/sessions/current", headers=acme_tab)
    assert current.json()["mandate_id"] == alice.mandate_id
    # a mandate whose key the session does not hold is refused; the session goes on
    foreign = await client.get("/v1/me", headers={"X-Mandate": outsider.mandate_id})
    assert_problem(foreign, 403, "X-Mandate", outsider.mandate_id)
    assert (await client.get("/v1/me")).json()["mandate_id"] == bob.mandate_id
    assert await session_count(runtime) == 1
    # a bearer key is bound to its mandate: the header changes nothing there
    bearer = await client.get("/v1/me", headers={**outsider.headers, "X-Mandate": bob.mandate_id})
    assert bearer.json()["mandate_id"] == outsider.mandate_id


async def test_a_revoked_key_ends_its_sessions_on_the_next_request(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    csrf = {"X-CSRF-Token": (await sign_in(client, alice))["csrf_token"]}
    added = await client.post("/v1/sessions/current/keys", json={"api_key": bob.key}, headers=csrf)
    assert added.status_code == 200, added.text
    await client.put(
        "/v1/sessions/current/mandate", json={"mandate_id": alice.mandate_id}, headers=csrf
    )
    await revoke(runtime, bob)  # not even the active mandate's key
    assert_problem(await client.get("/v1/me"), 401, "revoked")
    assert await session_count(runtime) == 0
    # the key of the other mandate still works as a bearer key, and for a new sign-in
    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    await sign_in(client, alice)
    assert (await client.get("/v1/me")).status_code == 200


async def test_signing_in_again_replaces_the_browsers_previous_session(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    await sign_in(client, alice)
    first = client.cookies[COOKIE]
    await sign_in(client, bob)
    assert client.cookies[COOKIE] != first
    assert await session_count(runtime) == 1
    assert (await client.get("/v1/me")).json()["mandate_id"] == bob.mandate_id


async def test_an_expired_session_is_deleted(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    await sign_in(client, alice)
    async with runtime.database.transaction() as db:
        await db.execute(update(WebSession).values(expires_at=utc_now() - timedelta(seconds=1)))
    assert_problem(await client.get("/v1/me"), 401, "expired")
    assert await session_count(runtime) == 0


async def test_sign_out_deletes_the_session(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member("acme")
    csrf = {"X-CSRF-Token": (await sign_in(client, alice))["csrf_token"]}
    token = client.cookies[COOKIE]
    assert_problem(await client.delete("/v1/sessions/current"), 403, "X-CSRF-Token")
    response = await client.delete("/v1/sessions/current", headers=csrf)
    assert response.status_code == 204, response.text
    assert COOKIE in response.headers["set-cookie"]  # the browser is told to drop it
    assert await session_count(runtime) == 0
    # a copy of the old cookie is worthless
    client.cookies.set(COOKIE, token)
    replay = await client.get("/v1/me")
    assert_problem(replay, 401, "sign in again")


async def test_a_bearer_key_wins_over_the_cookie_and_needs_no_csrf(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    await sign_in(client, alice)
    me = await client.get("/v1/me", headers=bob.headers)
    assert me.json()["mandate_id"] == bob.mandate_id
    created = await client.post("/v1/folders", json={"name": "Bob's"}, headers=bob.headers)
    assert created.status_code == 201, created.text
    # the session routes need the cookie itself
    client.cookies.clear()
    assert_problem(
        await client.get("/v1/sessions/current", headers=bob.headers), 401, "session cookie"
    )


@pytest.fixture
async def two_clients(app: FastAPI) -> AsyncIterator[tuple[httpx.AsyncClient, ...]]:
    transport = httpx.ASGITransport(app=app)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as first,
        httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as second,
    ):
        yield first, second


async def test_sessions_are_separate(
    two_clients: tuple[httpx.AsyncClient, ...], tenants: Tenants
) -> None:
    first, second = two_clients
    alice = await tenants.member("acme")
    bob = await tenants.member("globex")
    first_csrf = (await sign_in(first, alice))["csrf_token"]
    second_csrf = (await sign_in(second, bob))["csrf_token"]
    assert first_csrf != second_csrf
    assert (await first.get("/v1/me")).json()["mandate_id"] == alice.mandate_id
    assert (await second.get("/v1/me")).json()["mandate_id"] == bob.mandate_id
    # one session's CSRF token does not unlock another
    crossed = await first.post(
        "/v1/folders", json={"name": "x"}, headers={"X-CSRF-Token": second_csrf}
    )
    assert_problem(crossed, 403, "X-CSRF-Token")


async def test_a_cookie_outside_v1_needs_csrf_too_and_never_opens_mcp(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    """/openai/v1 shares the REST API's authentication: a cookie works there only with the
    CSRF token on POST. /mcp takes a bearer key alone: a cookie gets nothing."""
    alice = await tenants.member("acme")
    csrf = (await sign_in(client, alice))["csrf_token"]
    completion = {"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]}
    refused = await client.post("/openai/v1/chat/completions", json=completion)
    assert refused.status_code == 403, refused.text
    assert "X-CSRF-Token" in refused.json()["error"]["message"]
    with_token = await client.post(
        "/openai/v1/chat/completions", json=completion, headers={"X-CSRF-Token": csrf}
    )
    assert with_token.status_code == 404, with_token.text  # past authentication: no such model
    mcp = await client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"X-CSRF-Token": csrf, "Accept": "application/json, text/event-stream"},
    )
    assert_problem(mcp, 401, "Bearer")

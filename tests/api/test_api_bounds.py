"""Every number and list a request carries is bounded: bad input is a 422 naming the field,
never a 500 and never a limit that silently disappears."""

from __future__ import annotations

import math

import httpx
import pytest
from sqlalchemy import select

from agentur.ai.mandate_ai_settings import update_mandate_ai_settings
from agentur.context import Role
from agentur.errors import InvalidInputError
from agentur.runtime import Runtime
from agentur.storage.models import File
from agentur.storage.paging import MAX_OFFSET, page
from agentur.workspace.file_attributes import MAX_TAGS
from tests.api.files_helpers import assert_problem, upload_ok
from tests.conftest import Tenants

JSON = {"Content-Type": "application/json"}


async def test_offsets_beyond_64_bits_are_refused_not_a_500(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    workflow = (await client.post("/v1/workflows", json={}, headers=alice.headers)).json()
    lists = [
        "/v1/files",
        "/v1/workflows",
        f"/v1/workflows/{workflow['id']}/messages",
        "/v1/assistants",
    ]
    for path in lists:
        too_far = await client.get(path, params={"offset": MAX_OFFSET + 1}, headers=alice.headers)
        assert_problem(too_far, 422, "offset")
        # The largest offset both databases take is a valid (empty) page.
        last = await client.get(path, params={"offset": MAX_OFFSET}, headers=alice.headers)
        assert last.status_code == 200, (path, last.text)
        body = last.json()
        assert (body["items"] if isinstance(body, dict) else body) == []


def test_paging_is_bounded_where_queries_are_built() -> None:
    query = select(File.id)
    with pytest.raises(InvalidInputError, match="offset"):
        page(query, 10, MAX_OFFSET + 1)
    with pytest.raises(InvalidInputError, match="offset"):
        page(query, 10, -1)
    with pytest.raises(InvalidInputError, match="limit"):
        page(query, 0, 0)


async def test_tag_filters_are_bounded(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    await upload_ok(client, alice, "a.txt", tags="x,y")
    flood = [("tag", f"t{n}") for n in range(1_000)]
    assert_problem(await client.get("/v1/files", params=flood, headers=alice.headers), 422, "tag")
    most = [("tag", "x")] * MAX_TAGS
    listed = await client.get("/v1/files", params=most, headers=alice.headers)
    assert [f["name"] for f in listed.json()["items"]] == ["a.txt"]
    assert_problem(
        await client.get("/v1/files", params=[("tag", "x\u202ey")], headers=alice.headers),
        422,
        "U+202E",
    )


@pytest.mark.parametrize("field", ["monthly_limit_chf", "balance_chf"])
@pytest.mark.parametrize("number", ["1e999", "Infinity", "-Infinity", "NaN"])
async def test_ai_limits_must_be_finite(
    client: httpx.AsyncClient, tenants: Tenants, field: str, number: str
) -> None:
    admin = await tenants.member(role=Role.admin)
    url = "/v1/admin/ai-settings"
    set_limit = await client.patch(url, json={field: 25.0}, headers=admin.headers)
    assert set_limit.status_code == 200, set_limit.text
    body = f'{{"{field}": {number}}}'.encode()
    refused = await client.patch(url, content=body, headers={**admin.headers, **JSON})
    problem = assert_problem(refused, 422, field)
    assert "finite" in problem["detail"] or "greater than or equal" in problem["detail"]
    # The limit stays what it was: infinity never turns into "no limit".
    assert (await client.get(url, headers=admin.headers)).json()[field] == 25.0


async def test_ai_limit_bounds_hold_in_the_domain_too(runtime: Runtime, tenants: Tenants) -> None:
    member = await tenants.member()
    async with runtime.database.session() as session:
        for value in (math.inf, math.nan, -1.0, 1e12):
            with pytest.raises(InvalidInputError, match="monthly_limit_chf"):
                await update_mandate_ai_settings(
                    session, member.mandate_id, {"monthly_limit_chf": value}
                )


async def test_agent_budget_must_be_finite(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    body = b'{"prompt": "hi", "config": {"max_cost_chf": 1e999}}'
    refused = await client.post("/v1/agent/runs", content=body, headers={**alice.headers, **JSON})
    assert_problem(refused, 422, "max_cost_chf")
    # `false` is not a number and `"5"` not an integer (JSON Schema, as documented).
    for config in ({"max_cost_chf": False}, {"max_rounds": "5"}, {"exclude_action_tools": 0}):
        wrong = await client.post(
            "/v1/agent/runs", json={"prompt": "hi", "config": config}, headers=alice.headers
        )
        assert_problem(wrong, 422, next(iter(config)))


async def test_text_the_database_cannot_store_is_bad_input(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """PostgreSQL stores no NUL in text: a 422 saying so, never a 500 (SQLite stores it)."""
    alice = await tenants.member()
    headers = {**alice.headers, **JSON}
    # A NUL in a name is refused by the name rule on every backend, before the database.
    title = await client.post("/v1/workflows", content=b'{"title": "a\\u0000b"}', headers=headers)
    assert_problem(title, 422, "title", "U+0000")
    answers = [
        await client.get("/v1/files", params={"search": "a\x00"}, headers=alice.headers),
        await client.get("/v1/files/a%00b", headers=alice.headers),
    ]
    if runtime.database.engine.dialect.name == "postgresql":
        for answer in answers:
            assert_problem(answer, 422, "NUL")
    else:
        assert [a.status_code for a in answers] == [200, 404]

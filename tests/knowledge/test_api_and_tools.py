"""HTTP endpoints, document tools and windowed section reads, with tenant checks."""

from __future__ import annotations

import httpx

from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.tools.documents import TOOLS as DOCUMENT_TOOLS
from agentur.tools.knowledge_search import TOOLS as SEARCH_TOOLS
from agentur.tools.tool import ToolContext
from tests.knowledge.conftest import upload
from tests.knowledge.sample_files import MARKDOWN

TOOLS = {tool.name: tool for tool in [*DOCUMENT_TOOLS, *SEARCH_TOOLS]}


async def _call(name: str, context: ToolContext, **arguments: object) -> dict:
    tool = TOOLS[name]
    return await tool.handler(tool.arguments(**arguments), context)


async def test_http_search_index_and_reindex(
    runtime: Runtime, store: KnowledgeStore, client: httpx.AsyncClient, tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    file = await upload(runtime, alice.context, "guide.md", MARKDOWN)
    pending = await client.get(f"/v1/files/{file.id}/index", headers=alice.headers)
    assert pending.status_code == 200 and pending.json()["status"] == "pending"
    await store.worker.run_until_idle()

    index = (await client.get(f"/v1/files/{file.id}/index", headers=alice.headers)).json()
    assert index["status"] == "indexed" and index["format"] == "markdown"
    assert [s["path"] for s in index["structure"]["sections"]] == [["Guide"], ["Guide", "Setup"]]
    assert (
        await client.get(f"/v1/files/{file.id}/index", headers=mallory.headers)
    ).status_code == 404

    found = await client.post(
        "/v1/knowledge/search",
        json={"query": "install run setup", "limit": 3},
        headers=alice.headers,
    )
    assert found.status_code == 200
    body = found.json()
    assert body["legs"] == ["vector", "lexical"] and body["hits"][0]["file_id"] == file.id
    assert body["hits"][0]["heading_path"] == ["Guide", "Setup"]
    other = await client.post(
        "/v1/knowledge/search", json={"query": "install run setup"}, headers=mallory.headers
    )
    assert other.json()["hits"] == []
    bad = await client.post(
        "/v1/knowledge/search", json={"query": "x", "limit": 999}, headers=alice.headers
    )
    assert bad.status_code == 422

    again = await client.post(f"/v1/files/{file.id}/reindex", headers=alice.headers)
    assert again.status_code == 202 and again.json()["status"] == "pending"
    assert (
        await client.post(f"/v1/files/{file.id}/reindex", headers=mallory.headers)
    ).status_code == 404
    outcomes = await store.worker.run_until_idle()
    assert [o.status for o in outcomes] == ["indexed"]


async def test_document_tools_are_windowed_and_tenant_bound(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    file = await upload(runtime, alice.context, "guide.md", MARKDOWN)
    await store.worker.run_until_idle()
    mine = ToolContext(request=alice.context, runtime=runtime)

    outline = await _call("browse_container", mine, file_id=file.id)
    assert [s["path"] for s in outline["sections"]] == [["Guide"], ["Guide", "Setup"]]
    walk = await _call("walk_udm_blocks", mine, file_id=file.id, max_blocks=2)
    assert len(walk["blocks"]) == 2 and walk["next_block"] == 2
    tables = await _call("filter_udm_by_type", mine, file_id=file.id, content_type="table")
    assert tables["blocks"][0]["rows"] == [["Key", "Value"], ["a", "1"]]
    structure = await _call("get_udm_structure", mine, file_id=file.id)
    assert structure["blocks_by_type"]["code"] == 1
    objects = await _call("read_content_objects", mine, file_id=file.id, block_indexes=[0])
    assert objects["blocks"][0]["text"] == "Intro text."
    section = await _call(
        "extract_container_item", mine, file_id=file.id, heading_path=["Setup"], limit=10
    )
    assert section["content"] == "Setup\n\n- i" and section["next_offset"] == 10
    assert section["total_length"] > 10
    rest = await _call(
        "extract_container_item", mine, file_id=file.id, heading_path=["Setup"], offset=10
    )
    assert (section["content"] + rest["content"]).endswith("[image: Diagram]")
    hits = await _call("search_knowledge", mine, query="agentur serve")
    assert hits["hits"][0]["file_id"] == file.id

    theirs = ToolContext(request=mallory.context, runtime=runtime)
    try:
        await _call("browse_container", theirs, file_id=file.id)
    except Exception as error:  # noqa: BLE001
        assert type(error).__name__ == "NotFoundError"
    else:
        raise AssertionError("a file of another tenant was readable")
    assert (await _call("search_knowledge", theirs, query="agentur serve"))["hits"] == []

"""GET /v1/files/{id}/section: a search hit's section of the indexed text (the web app's link
from a hit to its section), by heading path or by range; windowed; tenant-bound."""

from __future__ import annotations

import httpx

from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem
from tests.conftest import Tenants
from tests.knowledge.conftest import upload
from tests.knowledge.sample_files import MARKDOWN


async def test_a_hits_section_by_heading_path_and_by_range(
    runtime: Runtime, store: KnowledgeStore, client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("other")
    file = await upload(runtime, alice.context, "guide.md", MARKDOWN)
    url = f"/v1/files/{file.id}/section"
    assert_problem(await client.get(url, headers=alice.headers), 404, "not indexed")
    await store.worker.run_until_idle()

    found = await client.post(
        "/v1/knowledge/search", json={"query": "install run setup"}, headers=alice.headers
    )
    hit = found.json()["hits"][0]
    assert hit["heading_path"] == ["Guide", "Setup"]

    section = await client.get(
        url, params=[("heading", part) for part in hit["heading_path"]], headers=alice.headers
    )
    assert section.status_code == 200, section.text
    body = section.json()
    assert body["file_name"] == "guide.md" and body["heading_path"] == ["Guide", "Setup"]
    assert "install" in body["content"] and "Intro text." not in body["content"]
    # the hit's offsets point into the same text the section comes from
    passage = body["content"][
        hit["start"] - body["section_start"] : hit["end"] - body["section_start"]
    ]
    assert passage == hit["text"]

    ranged = await client.get(
        url, params={"start": hit["start"], "end": hit["end"]}, headers=alice.headers
    )
    assert ranged.json()["content"] == hit["text"]
    window = await client.get(url, params={"limit": 5}, headers=alice.headers)
    assert len(window.json()["content"]) == 5 and window.json()["next_offset"] == 5

    assert_problem(
        await client.get(url, params={"heading": "Nowhere"}, headers=alice.headers),
        404,
        "Nowhere",
    )
    assert_problem(
        await client.get(url, params={"start": 9, "end": 3}, headers=alice.headers),
        422,
        "end must not be before start",
    )
    assert_problem(await client.get(url, headers=mallory.headers), 404, file.id)

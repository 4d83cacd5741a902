"""Uploads: size limit, name rules, duplicate names, tags, scopes, and list filters."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from agentur.config import Settings
from agentur.context import Role
from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem, file_count, stored_blobs, upload, upload_ok
from tests.conftest import Member, Tenants

MAX_BYTES = 1000
MAX_NAME = 40


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        max_upload_bytes=MAX_BYTES,
        max_name_length=MAX_NAME,
        blob_grace_seconds=0,
    )


async def test_too_large_uploads_get_413_and_store_nothing(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    # Just over the limit: only counting the streamed bytes can catch it.
    streamed = await upload(client, alice, "big.txt", b"x" * (MAX_BYTES + 1))
    assert_problem(streamed, 413, str(MAX_BYTES))
    # Far over the limit: refused from Content-Length alone.
    declared = await upload(client, alice, "huge.bin", b"\0" * (MAX_BYTES + 200_000))
    assert_problem(declared, 413, str(MAX_BYTES))
    assert await file_count(runtime) == 0
    assert stored_blobs(runtime) == []

    exact = await upload_ok(client, alice, "exact.txt", b"y" * MAX_BYTES)
    assert exact["size"] == MAX_BYTES
    assert len(stored_blobs(runtime)) == 1


async def test_too_large_uploads_are_refused_before_the_body_is_read(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """The server must not spool a huge body to disk before saying 413."""
    alice = await tenants.member()
    chunk = b"-" * 65_536
    pulled: list[int] = []

    head = (
        b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n"
    )
    tail = b"\r\n--xyz--\r\n"

    async def body() -> AsyncIterator[bytes]:
        yield head
        for number in range(200):  # ~13 MB, far beyond the limit
            pulled.append(number)
            yield chunk
        yield tail

    multipart = {"Content-Type": "multipart/form-data; boundary=xyz"}
    size = len(head) + len(chunk) * 200 + len(tail)
    for extra in ({"Content-Length": str(size)}, {}):  # declared, then chunked
        pulled.clear()
        response = await client.post(
            "/v1/files", content=body(), headers={**alice.headers, **multipart, **extra}
        )
        assert_problem(response, 413, str(MAX_BYTES))
        assert len(pulled) < 10, f"read {len(pulled)} chunks before refusing"
    assert await file_count(runtime) == 0
    assert stored_blobs(runtime) == []


BAD_NAMES = [
    ("..", ".."),
    ("a..b.txt", ".."),
    ("dir/file.txt", "/"),
    ("dir\\file.txt", "/"),
    ("bell\x07.txt", "control"),
    ("tab\tname.txt", "control"),
    ("n" * (MAX_NAME + 1), str(MAX_NAME)),
    ("   ", "empty"),
]


async def test_bad_names_get_422_and_store_nothing(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    for name, complaint in BAD_NAMES:
        await _refused_everywhere(client, alice, name, complaint)
    assert await file_count(runtime) == 0
    assert stored_blobs(runtime) == []


async def _refused_everywhere(
    client: httpx.AsyncClient, alice: Member, name: str, complaint: str
) -> None:
    # The stored name can come from the `name` field or from the multipart file name.
    response = await upload(client, alice, "ok.txt", "content", name=name)
    assert_problem(response, 422, complaint)
    # httpx percent-encodes control characters in multipart file names, so those reach the
    # server as harmless text; the other rules apply to file names as sent.
    if name.strip() and name.isprintable():
        response = await upload(client, alice, name, "content")
        assert response.status_code == 422, response.text
    folder = await client.post("/v1/folders", json={"name": name}, headers=alice.headers)
    assert_problem(folder, 422, complaint)


async def test_a_path_as_upload_file_name_is_refused_not_shortened(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """python-multipart turns an old-browser full path into its last part; the workspace rule
    is one for every name: a path is refused (422), never quietly stored under its last part."""
    alice = await tenants.member()
    for sent in ("C:\\Windows\\win.ini", "\\\\server\\share\\x.ini", "sub\\x.txt"):
        disposition = f'form-data; name="file"; filename="{sent}"'
        body = f"--b\r\nContent-Disposition: {disposition}\r\n\r\nhi\r\n--b--\r\n".encode()
        response = await client.post(
            "/v1/files",
            content=body,
            headers={**alice.headers, "Content-Type": "multipart/form-data; boundary=b"},
        )
        assert_problem(response, 422, "must not contain '/' or '\\'")
    assert await file_count(runtime) == 0
    # The stored name can still be given explicitly.
    named = await upload_ok(client, alice, "C:\\Windows\\win.ini", "hi", name="win.ini")
    assert named["name"] == "win.ini"


async def test_duplicate_names(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    bob = await tenants.member()
    first = await upload_ok(client, alice, "notes.txt", "one")
    assert (await upload_ok(client, alice, "notes.txt", "two"))["name"] == "notes (2).txt"
    assert (await upload_ok(client, alice, "notes.txt", "three"))["name"] == "notes (3).txt"
    assert (await upload_ok(client, alice, "notes (2).txt", "four"))["name"] == "notes (4).txt"
    assert (await upload_ok(client, alice, ".env", "a"))["name"] == ".env"
    assert (await upload_ok(client, alice, ".env", "b"))["name"] == ".env (2)"
    # Each member has their own top level.
    assert (await upload_ok(client, bob, "notes.txt", "bob's"))["name"] == "notes.txt"

    failed = await upload(client, alice, "notes.txt", "never stored", on_conflict="fail")
    assert_problem(failed, 409, "notes.txt")
    replaced = await upload_ok(client, alice, "notes.txt", "replaced", on_conflict="replace")
    assert replaced["id"] == first["id"] and replaced["size"] == len("replaced")
    download = await client.get(f"/v1/files/{first['id']}/download", headers=alice.headers)
    assert download.content == b"replaced"

    assert await file_count(runtime) == 7
    # "one" was replaced and "never stored" was refused before its bytes were kept.
    assert len(stored_blobs(runtime)) == 7
    assert_problem(
        await upload(client, alice, "x.txt", "x", on_conflict="maybe"), 422, "on_conflict"
    )


async def test_concurrent_uploads_of_one_name(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """Parallel uploads (a double click, an agent writing in parallel) behave like serial ones."""
    alice = await tenants.member()
    renamed = await asyncio.gather(*(upload(client, alice, "same.txt", f"v{i}") for i in range(6)))
    assert [response.status_code for response in renamed] == [201] * 6, [
        r.json().get("detail") for r in renamed
    ]
    names = sorted(response.json()["name"] for response in renamed)
    assert names == [
        "same (2).txt",
        "same (3).txt",
        "same (4).txt",
        "same (5).txt",
        "same (6).txt",
        "same.txt",
    ]

    failing = await asyncio.gather(
        *(upload(client, alice, "once.txt", f"w{i}", on_conflict="fail") for i in range(4))
    )
    statuses = sorted(response.status_code for response in failing)
    assert statuses == [201, 409, 409, 409], [r.text for r in failing]
    assert await file_count(runtime) == 7
    # The refused uploads' bytes were not kept.
    assert len(stored_blobs(runtime)) == 7


async def test_tags_scopes_and_flags_on_upload(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    response = await client.post(
        "/v1/files",
        headers=alice.headers,
        files={"file": ("data.json", b'{"a": 1}', "application/json")},
        data={"tags": ["alpha, beta", "gamma", "alpha"], "neutralize": "true", "scope": "mandate"},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["tags"] == ["alpha", "beta", "gamma"]
    assert (body["scope"], body["neutralize"], body["mime_type"]) == (
        "mandate",
        True,
        "application/json",
    )
    assert body["owner_id"] == alice.user_id and body["mandate_id"] == alice.mandate_id
    assert body["created_at"].endswith(("Z", "+00:00"))

    assert_problem(await upload(client, alice, "g.txt", "x", scope="global"), 403, "global")
    assert_problem(await upload(client, alice, "g.txt", "x", scope="public"), 422, "scope")
    assert_problem(await upload(client, alice, "t.txt", "x", tags="bad\x01tag"), 422, "tag")
    root = await tenants.member("platform", Role.admin, platform_admin=True)
    shared = await upload_ok(client, root, "terms.txt", "for everyone", scope="global")
    other = await tenants.member("globex", Role.viewer)
    assert (await client.get(f"/v1/files/{shared['id']}", headers=other.headers)).status_code == 200
    assert_problem(await client.delete(f"/v1/files/{shared['id']}", headers=alice.headers), 403)


async def test_list_filters_and_paging(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    bob = await tenants.member()
    folder = (await client.post("/v1/folders", json={"name": "F"}, headers=alice.headers)).json()
    await upload_ok(client, alice, "Budget 2025.xlsx", b"PK\x03\x04", tags="finance,2025")
    await upload_ok(client, alice, "budget-notes.txt", "n", tags="finance")
    await upload_ok(client, alice, "50% done.txt", "p", scope="mandate")
    await upload_ok(client, alice, "inner.txt", "i", folder_id=folder["id"], tags="2025")
    await upload_ok(client, bob, "bob budget.txt", "b", scope="mandate")
    await upload_ok(client, bob, "bob private budget.txt", "b")

    async def names(**params: object) -> list[str]:
        response = await client.get("/v1/files", params=params, headers=alice.headers)
        assert response.status_code == 200, response.text
        return [item["name"] for item in response.json()["items"]]

    everything = [
        "50% done.txt",
        "bob budget.txt",
        "budget-notes.txt",
        "Budget 2025.xlsx",
        "inner.txt",
    ]
    assert sorted(await names(), key=str.lower) == sorted(everything, key=str.lower)
    assert sorted(await names(search="BUDGET")) == [
        "Budget 2025.xlsx",
        "bob budget.txt",
        "budget-notes.txt",
    ]
    assert await names(search="%") == ["50% done.txt"]
    assert await names(search="_") == []
    assert await names(search="/") == []  # the LIKE escape character is itself escaped
    assert await names(tag="finance") == ["Budget 2025.xlsx", "budget-notes.txt"]
    assert await names(tag=["finance", "2025"]) == ["Budget 2025.xlsx"]
    assert await names(tag="nope") == []
    assert await names(tag="finance", search="NOTES", scope="personal") == ["budget-notes.txt"]
    assert await names(tag="finance", folder_id="root", scope="mandate") == []
    assert await names(folder_id=folder["id"]) == ["inner.txt"]
    # The top level is the caller's own; colleagues' shared files are not in it.
    assert await names(folder_id="root") == ["50% done.txt", "Budget 2025.xlsx", "budget-notes.txt"]
    assert await names(scope="mandate") == ["50% done.txt", "bob budget.txt"]
    # Each listed file carries its own tags, sorted (they ride on the listing's one query).
    listed = (await client.get("/v1/files", headers=alice.headers)).json()["items"]
    assert {item["name"]: item["tags"] for item in listed} == {
        "50% done.txt": [],
        "bob budget.txt": [],
        "budget-notes.txt": ["finance"],
        "Budget 2025.xlsx": ["2025", "finance"],
        "inner.txt": ["2025"],
    }

    page = await client.get("/v1/files", params={"limit": 2, "offset": 1}, headers=alice.headers)
    body = page.json()
    assert (body["total"], body["limit"], body["offset"], len(body["items"])) == (5, 2, 1, 2)
    # The total rides on the page's rows; a page past the end still reports it.
    past = await client.get("/v1/files", params={"offset": 7}, headers=alice.headers)
    assert (past.json()["total"], past.json()["items"]) == (5, [])
    filtered = await client.get("/v1/files", params={"tag": "finance"}, headers=alice.headers)
    assert filtered.json()["total"] == 2
    all_ids = [
        item["id"]
        for offset in range(0, 5, 2)
        for item in (
            await client.get(
                "/v1/files", params={"limit": 2, "offset": offset}, headers=alice.headers
            )
        ).json()["items"]
    ]
    assert len(all_ids) == len(set(all_ids)) == 5
    for bad in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"scope": "nope"}):
        assert_problem(await client.get("/v1/files", params=bad, headers=alice.headers), 422)

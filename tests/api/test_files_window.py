"""Windowed content reads over multi-byte UTF-8: offsets count characters, never bytes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from agentur.config import Settings
from tests.api.files_helpers import assert_problem, upload_ok
from tests.conftest import Member, Tenants

MAX_WINDOW = 50
# Two-byte umlauts, three-byte CJK and euro sign, four-byte emoji (incl. a flag and a ZWJ family).
TEXT = (
    "Grüezi Zürich! Ölförderung ÄÖÜ äöü ß.\n"
    "日本語のテキスト、中文文本。한국어.\n"
    "Emoji: 😀🚀🇨🇭 👩‍👩‍👧 €100 — ✓\n"
) * 3


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        default_read_window=20,
        max_read_window=MAX_WINDOW,
    )


async def _window(
    client: httpx.AsyncClient, member: Member, file_id: str, **params: object
) -> httpx.Response:
    return await client.get(f"/v1/files/{file_id}/content", params=params, headers=member.headers)


async def test_windows_concatenate_to_the_original(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    file_id = (await upload_ok(client, alice, "mixed.txt", TEXT))["id"]
    short_id = (await upload_ok(client, alice, "short.txt", "ä😀日\n👩‍👧"))["id"]
    for target, text, limit in (
        (short_id, "ä😀日\n👩‍👧", 1),
        (file_id, TEXT, 7),
        (file_id, TEXT, MAX_WINDOW),
    ):
        await _read_all(client, alice, target, text, limit)


async def _read_all(
    client: httpx.AsyncClient, alice: Member, file_id: str, text: str, limit: int
) -> None:
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        response = await _window(client, alice, file_id, offset=offset, limit=limit)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["offset"] == offset and body["limit"] == limit
        assert body["total_length"] == len(text)
        assert 0 < len(body["content"]) <= limit
        # Every window is valid text on its own: no split character, no replacement marks.
        assert "\ufffd" not in body["content"]
        assert body["content"] == text[offset : offset + limit]
        pieces.append(body["content"])
        offset = body["next_offset"]
    assert "".join(pieces) == text
    assert len(pieces) == -(-len(text) // limit)


async def test_offsets_count_characters_not_bytes(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    file_id = (await upload_ok(client, alice, "cjk.txt", "日本語😀ü-end"))["id"]
    body = (await _window(client, alice, file_id, offset=3, limit=2)).json()
    assert body == {"content": "😀ü", "offset": 3, "limit": 2, "total_length": 9, "next_offset": 5}
    # Without a limit the configured default window applies.
    default = (
        await _window(client, alice, (await upload_ok(client, alice, "a.txt", "x" * 30))["id"])
    ).json()
    assert (default["limit"], len(default["content"]), default["next_offset"]) == (20, 20, 20)


async def test_offsets_at_or_beyond_the_end_and_empty_files(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    file_id = (await upload_ok(client, alice, "cjk.txt", "日本語😀ü-end"))["id"]
    for offset in (9, 10, 10_000):
        body = (await _window(client, alice, file_id, offset=offset, limit=5)).json()
        assert body == {
            "content": "",
            "offset": offset,
            "limit": 5,
            "total_length": 9,
            "next_offset": None,
        }
    file_id = (await upload_ok(client, alice, "empty.txt", b""))["id"]
    body = (await _window(client, alice, file_id)).json()
    assert (body["content"], body["total_length"], body["next_offset"]) == ("", 0, None)


async def test_invalid_windows_are_422_problems(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    file_id = (await upload_ok(client, alice, "a.txt", "abc"))["id"]
    cases = [
        ({"limit": 0}, "limit"),
        ({"limit": -5}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": "1.5"}, "offset"),
        ({"limit": MAX_WINDOW + 1}, str(MAX_WINDOW)),
    ]
    for params, detail in cases:
        body = assert_problem(await _window(client, alice, file_id, **params), 422, detail)
        assert body["title"], params
    assert (await _window(client, alice, file_id, limit=MAX_WINDOW)).status_code == 200


async def test_binary_files_are_refused(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01" + bytes(range(256))
    file_id = (await upload_ok(client, alice, "pixel.png", png))["id"]
    assert_problem(await _window(client, alice, file_id), 422, "image/png")
    with_nul = (await upload_ok(client, alice, "data.bin", b"abc\x00def"))["id"]
    assert_problem(await _window(client, alice, with_nul), 422, "binary")
    # The bytes stay downloadable.
    download = await client.get(f"/v1/files/{file_id}/download", headers=alice.headers)
    assert download.content == png and download.headers["content-type"] == "image/png"
    assert download.headers["content-length"] == str(len(png))

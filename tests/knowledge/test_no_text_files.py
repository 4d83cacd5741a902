"""Files with no text — a recording, an unknown binary — are never indexed as text: uploaded as
the README says (`POST /v1/files`), their index gets status `no_text` with the reason and no
chunks, and no search ever finds the words their bytes happen to contain."""

from __future__ import annotations

import httpx
import pytest

from agentur.knowledge.extract import extract
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.workspace.text_window import NotTextError

OCR = OcrSettings()  # read from the environment, as the settings root reads them

# An MP3 frame header, then bytes that are not UTF-8 — with words in them that a Latin-1 reading
# of the file would index.
AUDIO = b"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x64" + bytes(range(128, 256)) * 4
AUDIO += b" alpine sunshine lyrics " + bytes(range(128, 256)) * 4
BINARY = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b" alpine sunshine build " + b"\x00\x01" * 64


@pytest.mark.parametrize(
    ("name", "data", "mime_type", "reason"),
    [
        ("song.mp3", AUDIO, "audio/mpeg", "audio/mpeg files hold no text"),
        ("clip.mp4", b"\x00\x00\x00\x18ftypmp42 alpine", "video/mp4", "video/mp4 files hold no"),
        ("tool.bin", BINARY, "application/octet-stream", "no extractor reads application/oct"),
        ("backup.zip", b"PK\x03\x04\x14\x00\xff\xfe" * 20, "application/zip", "no extractor"),
    ],
)
def test_binary_files_are_not_text(name: str, data: bytes, mime_type: str, reason: str) -> None:
    with pytest.raises(NotTextError, match=reason):
        extract(data, name, mime_type, OCR)


async def test_an_audio_upload_is_not_indexed_as_text_and_never_a_search_hit(
    runtime: Runtime, store: KnowledgeStore, client: httpx.AsyncClient, tenants
) -> None:
    alice = await tenants.member()
    ids = {}
    for name, data in (("song.mp3", AUDIO), ("tool.bin", BINARY), ("notes.txt", b"alpine notes")):
        uploaded = await client.post(
            "/v1/files", files={"file": (name, data)}, headers=alice.headers
        )
        assert uploaded.status_code == 201, uploaded.text
        ids[name] = uploaded.json()["id"]
    outcomes = {o.file_id: o.status for o in await store.worker.run_until_idle()}
    assert outcomes == {
        ids["song.mp3"]: "no_text",
        ids["tool.bin"]: "no_text",
        ids["notes.txt"]: "indexed",
    }

    song = (await client.get(f"/v1/files/{ids['song.mp3']}/index", headers=alice.headers)).json()
    assert song["status"] == "no_text" and song["chunk_count"] == 0
    assert song["error"] == "audio/mpeg files hold no text" and song["format"] is None
    found = await client.post(
        "/v1/knowledge/search", json={"query": "alpine sunshine lyrics"}, headers=alice.headers
    )
    assert [hit["file_id"] for hit in found.json()["hits"]] == [ids["notes.txt"]]

    # Settled: the worker leaves them alone until their bytes change.
    assert await store.worker.run_until_idle() == []

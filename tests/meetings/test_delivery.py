"""Delivery beyond text: speech through a text-to-speech wire server (a `speech` event and the
audio as a workspace file), and the chat webhook through the egress rules."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlparse

import httpx
import pytest
from fastapi import FastAPI

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.openai import OpenAIProvider
from agentur.runtime import Runtime
from tests.ai.wire_servers import Reply, WireServer, openai_speech
from tests.conftest import Tenants
from tests.egress.allowed_hosts import reread
from tests.meetings.support import (
    AGENT_ANSWER,
    events,
    meeting_model,
    of,
    say,
    settled,
    start,
    transcript_lines,
)

TTS = ModelSpec("openai", "gpt-4o-mini-tts", frozenset({Capability.text_to_speech}))
AUDIO = b"ID3\x04\x00fake-mp3-frames" + bytes(range(32))


@pytest.fixture
def speech_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


@pytest.fixture
def hook_server() -> Iterator[WireServer]:
    with WireServer("hook") as server:
        yield server


async def test_the_agents_answer_is_spoken_when_a_speech_model_is_configured(
    client: httpx.AsyncClient,
    app: FastAPI,
    runtime: Runtime,
    tenants: Tenants,
    speech_server: WireServer,
) -> None:
    speech = OpenAIProvider(api_key="sk-tts", base_url=speech_server.base_url, models=[TTS])
    runtime.ai, model = meeting_model(speech)
    speech_server.default_reply = openai_speech(AUDIO)
    alice = await tenants.member()
    meeting = await start(
        client, alice.headers, languages=["de"], wake_name="Agentur", voice="nova"
    )
    *_, research = transcript_lines("de")
    try:
        await say(client, alice.headers, meeting["id"], research)
        await settled(app, meeting["id"])
    finally:
        await speech.aclose()
    happened = events(app, meeting["id"])
    replies = [(event, data) for event, data in happened if event in ("reply", "speech")]
    # The holding answer and the agent's answer, each followed by its audio.
    assert [event for event, _ in replies] == ["reply", "speech", "reply", "speech"]
    agent_reply, agent_speech = replies[2][1], replies[3][1]
    assert agent_reply["text"] == AGENT_ANSWER["de"] and agent_reply["source"] == "agent"
    assert agent_speech["format"] == "mp3" and agent_speech["model"] == "openai:gpt-4o-mini-tts"
    spoken = [r.json for r in speech_server.received if r.path == "/v1/audio/speech"]
    assert [s["input"] for s in spoken][-1] == AGENT_ANSWER["de"]
    assert spoken[-1]["voice"] == "nova"
    audio = await client.get(agent_speech["url"], headers=alice.headers)
    assert audio.status_code == 200 and audio.content == AUDIO
    assert not [data for event, data in happened if event == "error"]
    assert len(of(model, OperationType.agent)) == 1
    await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)


async def test_the_chat_webhook_goes_through_the_egress_rules(
    client: httpx.AsyncClient,
    app: FastAPI,
    runtime: Runtime,
    tenants: Tenants,
    hook_server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runtime.ai, _ = meeting_model()
    alice = await tenants.member()
    url = f"{hook_server.url}/chat"
    monkeypatch.delenv("AGENTUR_EGRESS_ALLOWED_HOSTS", raising=False)
    reread(monkeypatch)
    refused = await client.post(
        "/v1/meetings", headers=alice.headers, json={"chat_webhook_url": url}
    )
    assert refused.status_code == 422
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "chat_webhook_url" in refused.json()["detail"]
    assert "loopback" in refused.json()["detail"]

    # Allowed by the operator's egress exception: replies are posted to the meeting chat.
    monkeypatch.setenv("AGENTUR_EGRESS_ALLOWED_HOSTS", urlparse(hook_server.url).netloc)
    reread(monkeypatch)
    hook_server.default_reply = Reply.json({"ok": True})
    meeting = await start(client, alice.headers, wake_name="Agentur", chat_webhook_url=url)
    _, _, question, _ = transcript_lines("en")
    await say(client, alice.headers, meeting["id"], question)
    await settled(app, meeting["id"])
    posted = [r for r in hook_server.received if r.path == "/chat"]
    assert len(posted) == 1 and posted[0].method == "POST"
    reply = next(data for event, data in events(app, meeting["id"]) if event == "reply")
    assert posted[0].json == {
        "session_id": meeting["id"],
        "text": reply["text"],
        "source": "fast_path",
    }

    # The rule is checked again at every post: withdrawn, the next reply is not posted.
    monkeypatch.delenv("AGENTUR_EGRESS_ALLOWED_HOSTS")
    reread(monkeypatch)
    await say(client, alice.headers, meeting["id"], question)
    await settled(app, meeting["id"])
    assert len([r for r in hook_server.received if r.path == "/chat"]) == 1
    failures = [
        d
        for e, d in events(app, meeting["id"])
        if e == "error" and d["code"] == "chat_webhook_failed"
    ]
    assert len(failures) == 1 and "loopback" in failures[0]["message"]
    await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)

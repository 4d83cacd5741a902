"""Helpers for the meeting tests: a scripted model that plays the fast path and the agent by
rules over what it is sent, and small API helpers."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from fastapi import FastAPI

from agentur.ai.messages import AiRequest
from agentur.ai.model_spec import Capability
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.meetings.live_session import LiveSession
from agentur.meetings.transcript_file import parse_transcript
from tests.agent.support import chat_model

DATA = Path(__file__).parent / "data"
MODEL = chat_model(
    capabilities=frozenset({Capability.tools, Capability.streaming, Capability.structured_output})
)
AGENT_ANSWER = {
    "de": "Laut Web-Recherche ist Python 3.14 die aktuelle Version.",
    "en": "According to the web, Python 3.14 is the current version.",
}
ANSWER = {
    "de": "Im Schaltjahr hat der Februar 29 Tage.",
    "en": "In a leap year February has 29 days.",
}
RESEARCH_WORDS = ("recherchier", "look this up")


def transcript_lines(language: str) -> list[dict[str, str]]:
    lines = parse_transcript((DATA / f"standup.{language}.txt").read_text())
    return [{"speaker": line.speaker, "text": line.text} for line in lines]


def just_said(request: AiRequest) -> str:
    text = request.messages[-1].content
    return text.split("JUST SAID:", 1)[1] if "JUST SAID:" in text else ""


def fast_path_turn(request: AiRequest) -> ScriptedTurn:
    """What a model following the fast path's instructions answers: silent unless addressed;
    research goes to the agent; an `answer in English` directive switches the language."""
    said = just_said(request)
    system = request.messages[0].content
    english = (
        "OPERATOR_DIRECTIVES" in system and "English" in system.split("OPERATOR_DIRECTIVES")[1]
    )
    language = "en" if english or "weekend" in said or "February" in said else "de"
    reply = {"respond": False, "text": "", "needs_agent": False, "agent_reason": ""}
    if any(word in said.lower() for word in RESEARCH_WORDS):
        question = said.strip().splitlines()[-1].split(":", 2)[-1].strip()
        holding = "Ich schaue nach." if language == "de" else "Let me look that up."
        reply = {"respond": True, "text": holding, "needs_agent": True, "agent_reason": question}
    elif "agentur," in said.lower() and "?" in said:
        reply = {**reply, "respond": True, "text": ANSWER[language]}
    return ScriptedTurn(text=json.dumps(reply, ensure_ascii=False))


def agent_turn(request: AiRequest) -> ScriptedTurn:
    prompt = " ".join(m.content for m in request.messages if m.role.value == "user")
    return ScriptedTurn(text=AGENT_ANSWER["en" if "current" in prompt else "de"])


def meeting_turn(request: AiRequest) -> ScriptedTurn:
    if request.operation == OperationType.meeting_reply:
        return fast_path_turn(request)
    if request.operation == OperationType.agent:
        return agent_turn(request)
    return ScriptedTurn(text="- The team talked about the weekend and Python.")


def meeting_model(*extra_providers: object) -> tuple[AiService, ScriptedProvider]:
    provider = ScriptedProvider([meeting_turn] * 200, model_specs=[MODEL])
    return AiService([provider, *extra_providers], settings=AiSettings()), provider  # type: ignore[list-item]


def of(provider: ScriptedProvider, operation: OperationType) -> list[AiRequest]:
    return [r for r in provider.received if r.operation == operation]


async def start(client: httpx.AsyncClient, headers: dict, **body: object) -> dict:
    response = await client.post("/v1/meetings", headers=headers, json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def say(client: httpx.AsyncClient, headers: dict, session_id: str, *lines: dict) -> None:
    response = await client.post(
        f"/v1/meetings/{session_id}/transcript", headers=headers, json={"utterances": list(lines)}
    )
    assert response.status_code == 202, response.text
    assert response.json()["accepted"] == len(lines)


def live(app: FastAPI, session_id: str) -> LiveSession:
    held = app.state.meetings.held(session_id)
    assert held is not None
    return held


async def settled(app: FastAPI, session_id: str) -> None:
    await live(app, session_id).idle()


def events(app: FastAPI, session_id: str) -> list[tuple[str, dict]]:
    return [(e.type.value, e.data) for e in live(app, session_id).hub.recent()]


def parse_sse(body: str) -> list[tuple[str, dict]]:
    found = []
    for frame in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in frame.splitlines())
        found.append((fields["event"], json.loads(fields["data"])))
    return found

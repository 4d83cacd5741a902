"""The tasks of `bench/real_model.py`: agent tasks and visitor questions, each with a deliberately
simple success check on the answer, the decision path or the workspace."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from agentur.detect_language import clear_language_name
from bench.real_model_harness import Bench

RETURNS = "You can return any item within 30 days; use the return label in the parcel."
CHEESE = "If cheese arrives damaged, send us a photo within 48 hours and we refund the full price."
DEFINITION: dict[str, Any] = {
    "name": "Cheese shop",
    "instructions": "You help visitors of the Lenzburg cheese shop.",
    "languages": ["en", "de", "fr", "it"],
    "faqs": [
        {
            "id": "returns",
            "question": "How can I return an item?",
            "variants": ["Can I send something back?"],
            "keywords": ["return"],
            "answer": RETURNS,
        },
        {
            "id": "damaged",
            "question": "What if my cheese arrives damaged?",
            "variants": ["The cheese was broken when it arrived"],
            "keywords": ["damaged"],
            "answer": CHEESE,
        },
    ],
    "help_desks": [
        {
            "id": "support",
            "name": "Customer support",
            "options": [{"kind": "email", "label": "E-mail", "address": "help@example.test"}],
        }
    ],
}
PHONE = re.compile(r"\+?\d[\d ]{7,}\d")
# hours.md says "Saturday 9:00 to 16:00"; "4 PM" is as right as "16:00"
SATURDAY_CLOSING = re.compile(r"\b16\b|\b4(?::00)?\s*(?:pm|p\.m\.)", re.IGNORECASE)


# --- agent tasks ------------------------------------------------------------------------------


async def agent(bench: Bench, prompt: str) -> dict[str, Any]:
    response = await bench.client.post(
        "/v1/agent/runs",
        json={
            "prompt": prompt,
            "config": {"max_rounds": bench.max_rounds, "temperature": bench.temperature},
        },
        headers=bench.headers,
    )
    response.raise_for_status()
    return response.json()


async def file_text(bench: Bench, name: str) -> str | None:
    listed = await bench.client.get("/v1/files", params={"search": name}, headers=bench.headers)
    for item in listed.raise_for_status().json()["items"]:
        if item["name"] == name:
            url = f"/v1/files/{item['id']}/content"
            return (await bench.client.get(url, headers=bench.headers)).text
    return None


def agent_tasks(bench: Bench) -> list[tuple[str, Callable[[], Awaitable[tuple[bool, str]]]]]:
    async def list_and_read() -> tuple[bool, str]:
        run = await agent(bench, "Which files do I have? Read notes.txt and tell me its owner.")
        return run["status"] == "completed" and "Mara Keller" in run["final_text"], _note(run)

    async def write_file() -> tuple[bool, str]:
        run = await agent(
            bench,
            "Create a file named summary.txt with exactly this text: Meeting moved to Friday.",
        )
        text = await file_text(bench, "summary.txt")
        return text is not None and "Meeting moved to Friday" in text, _note(run)

    async def answer_from_file() -> tuple[bool, str]:
        run = await agent(
            bench, "According to my file hours.md, when is the shop open on Saturday?"
        )
        final = run["final_text"]
        closes = SATURDAY_CLOSING.search(final) is not None
        return run["status"] == "completed" and closes and "9" in final, _note(run)

    async def refuse_to_invent() -> tuple[bool, str]:
        run = await agent(bench, "What is the phone number of our Geneva branch, per my files?")
        return run["status"] == "completed" and not PHONE.search(run["final_text"]), _note(run)

    async def german_answer() -> tuple[bool, str]:
        run = await agent(
            bench, "Wer leitet laut notes.txt das Projekt Alpenblick und wie hoch ist das Budget?"
        )
        final = run["final_text"]
        german = clear_language_name(final) == "German"
        facts = "Mara Keller" in final and "48" in final
        return run["status"] == "completed" and facts and german, _note(run)

    async def copy_by_name() -> tuple[bool, str]:
        run = await agent(bench, "Create a folder named Archiv and copy notes.txt into it.")
        folders = await bench.client.get("/v1/folders", headers=bench.headers)
        archive = [f for f in folders.raise_for_status().json() if f["name"] == "Archiv"]
        copied = False
        if archive:
            listed = await bench.client.get(
                "/v1/files", params={"folder_id": archive[0]["id"]}, headers=bench.headers
            )
            copied = any("notes" in f["name"] for f in listed.raise_for_status().json()["items"])
        return copied, _note(run)

    async def write_from_document() -> tuple[bool, str]:
        run = await agent(
            bench,
            "Read hours.md and write the Saturday opening hours into a new file saturday.txt.",
        )
        text = await file_text(bench, "saturday.txt")
        return text is not None and SATURDAY_CLOSING.search(text) is not None, _note(run)

    return [
        ("agent: list and read", list_and_read),
        ("agent: write a file", write_file),
        ("agent: answer from a file", answer_from_file),
        ("agent: refuse to invent", refuse_to_invent),
        ("agent: German answer", german_answer),
        ("agent: copy by name", copy_by_name),
        ("agent: write from a document", write_from_document),
    ]


def _note(run: dict[str, Any]) -> str:
    return f"{run['status']}/{run['rounds']}r: {' '.join(run['final_text'].split())}"


# --- visitor questions ------------------------------------------------------------------------


async def visitor_tasks(
    bench: Bench,
) -> list[tuple[str, Callable[[], Awaitable[tuple[bool, str]]]]]:
    created = await bench.client.post("/v1/assistants", json=DEFINITION, headers=bench.headers)
    created.raise_for_status()
    assistant = created.json()["id"]
    key = await bench.client.post(f"/v1/assistants/{assistant}/visitor-keys", headers=bench.headers)
    visitor = {"Authorization": f"Bearer {key.raise_for_status().json()['key']}"}

    async def ask(text: str) -> dict[str, Any]:
        # A fresh conversation per question, so one answer's language cannot carry over.
        started = await bench.client.post(
            f"/v1/assistants/{assistant}/conversations", headers=visitor
        )
        body = started.raise_for_status().json()
        headers = {**visitor, "X-Conversation-Token": body["token"]}
        said = await bench.client.post(
            f"/v1/assistants/{assistant}/conversations/{body['id']}/messages",
            json={"text": text},
            headers=headers,
        )
        return said.raise_for_status().json()

    def check(
        text: str, ok: Callable[[dict[str, Any]], bool]
    ) -> Callable[[], Awaitable[tuple[bool, str]]]:
        async def task() -> tuple[bool, str]:
            answer = await ask(text)
            path = ",".join(answer["decision_path"][1:])
            cited = ",".join(s.get("file") or s.get("faq_id") or "?" for s in answer["sources"])
            return ok(answer), f"{path} [{cited}]: {' '.join(answer['answer'].split())}"

        return task

    def from_hours(language: str) -> Callable[[dict[str, Any]], bool]:
        return lambda a: (
            a["language"] == language
            and SATURDAY_CLOSING.search(a["answer"]) is not None
            and any(s.get("file") == "hours.md" for s in a["sources"])
        )

    def refuses(a: dict[str, Any]) -> bool:
        offered = any(x.get("type") == "offer_escalation" for x in a["actions"])
        return (
            offered
            or not any(s.get("file") for s in a["sources"])
            and "yes" not in a["answer"].lower()
        )

    return [
        (
            "visitor: FAQ",
            check("How can I return an item?", lambda a: "faq:returns" in a["decision_path"]),
        ),
        (
            "visitor: paraphrase",
            check(
                "If the cheese arrives damaged, can I get my money back?",
                lambda a: "faq:damaged" in a["decision_path"],
            ),
        ),
        ("visitor: fact in a document", check("When are you open on Saturday?", from_hours("en"))),
        ("visitor: out of scope", check("Do you sell garden furniture?", refuses)),
        (
            "visitor: person request",
            check(
                "I want to talk to a person.",
                lambda a: "escalation_menu" in a["decision_path"] and a["language"] == "en",
            ),
        ),
        ("visitor: de", check("Wann haben Sie am Samstag geöffnet?", from_hours("de"))),
        ("visitor: fr", check("Quand êtes-vous ouverts le samedi ?", from_hours("fr"))),
        ("visitor: it", check("Quando siete aperti il sabato?", from_hours("it"))),
        ("visitor: en", check("What are your Saturday opening hours?", from_hours("en"))),
    ]

"""Which requests instruct the agent to change the workspace, in the four languages."""

from __future__ import annotations

import pytest

from agentur.agent.requested_change import asks_for_change


@pytest.mark.parametrize(
    "request_text",
    [
        "Create a file named summary.txt with exactly this text: Meeting moved to Friday.",
        "Read hours.md and write the Saturday opening hours into a new file saturday.txt.",
        "Create a folder named Archiv and copy notes.txt into it.",
        "Please send the report to Anna.",
        "Could you rename notes.txt to old-notes.txt?",
        "Erstelle einen Ordner Archiv und kopiere notes.txt hinein.",
        "Schreibe die Öffnungszeiten in saturday.txt.",
        "Crée un nouveau fichier horaires.txt avec les horaires.",
        "Scrivi un nuovo file orari.txt con gli orari.",
        "Lösche bitte die Datei alt.txt.",
    ],
)
def test_instructions_to_change_something(request_text: str) -> None:
    assert asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "Which files do I have? Read notes.txt and tell me its owner.",
        "Write a summary of notes.txt.",
        "Can you write me a short poem about cheese?",
        "How do I create a folder?",
        "Wie kann ich eine Datei löschen?",
        "Wer leitet laut notes.txt das Projekt Alpenblick?",
        "What is the phone number of our Geneva branch, per my files?",
        "Make sure the answer is short: when is the shop open?",
        "General question: what is in notes.txt?",
    ],
)
def test_questions_and_requests_for_text(request_text: str) -> None:
    assert not asks_for_change(request_text)

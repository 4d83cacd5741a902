"""What makes a model's reply no answer a run can end with, and whether it admits a failure.

Not an answer: an empty reply (nothing but whitespace or markdown); a reply carrying agentur's
own context (the round context's header and section titles, round-memory and hint lines,
knowledge headers) — the model copied what it was told, not what it found; tool-protocol markup
(`<tool_call>`, `<tool_response>`, `<function…>`, chat-template tokens) that the text-call
recovery did not turn into calls; advice to the user to call one of the run's tools; a reply
that is nothing but JSON naming workspace ids (a tool's raw result passed on — seen from a 1.5B
model: a file's metadata as the "answer" to a question about the file), or nothing but several
JSON values (made-up results one after the other — seen from a 0.5B model), unless the request
asked for JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from agentur.agent.repeated_calls import LOOP_TITLE

# Titles of the sections agentur writes into the round context (the agent's and the knowledge
# store's): a line that is one of them is never part of a real answer.
CONTEXT_TITLES = frozenset(
    {
        "current date and time",
        "the user's language",
        "summary of earlier rounds of this run",
        "context from the knowledge store",
        "knowledge context",
        "known files",
        "relevant documents",
        "earlier rounds",
        "workflow facts",
        "shared mandate documents",
        "hints from other workflows",
        LOOP_TITLE.lower(),
    }
)
CONTEXT_LINE = re.compile(
    r"\[(?:Context for this round|End of agentur's context)"  # the block's delimiters
    r"|^\s*\[End of [^\]\n]{1,60}\]\s*$"  # a section's end, as small models imitate it
    # the clock's and the language's fixed sentences
    r"|The user's local time is \d|Interpret relative dates such as"
    r"|The user writes in \w+\. Answer in"
    r"|^\s*-\s*(?:round \d+|workflow \S+)\b[^\n]{0,40}\(\d\.\d\d\)"  # memory and hint lines
    r"|\b[a-z][a-z0-9_]{2,63} \((?:ok|error)\): "  # a round's tool results as memory holds them
    r"|^\s*-\s*\[[^\]\n]*\bfile_id\b[^\]\n]*\]",  # a knowledge passage's header
    re.MULTILINE,
)
# Fixed words of agentur's corrective messages (check_final_answer.py; a test holds them to
# those texts), given back as the answer — seen from a 1.5B model: "The user's last reply is
# not an answer the user can be given: …".
CORRECTION_PHRASES = (
    "not an answer the user can be given",
    "nothing this run read (tool results",
    "Every tool call of your last round failed",
    "nothing has been done yet. Do it now",
)
# A knowledge passage's header, at the start of a line: "- [notes.txt (file_id …)] ".
PASSAGE_HEADER = re.compile(r"^\s*-\s*\[[^\]\n]*\bfile_id\b[^\]\n]*\]\s*")
HEADING = re.compile(r"^\s*#{1,4}\s*(?P<title>.+?)\s*$", re.MULTILINE)
MARKUP = re.compile(
    r"</?(?:tool_call|tool_response|tools|function(?:[=\s>]|_call))"
    r"|\[TOOL_CALLS\]|<\|(?:im_start|im_end|eot_id|start_header_id)\|>",
    re.IGNORECASE,
)
# A call written as JSON — even to a tool that is not offered, even with broken JSON after it
# (seen: `{"name": "create_file", "arguments": {…}]}` from a 0.5B model).
JSON_CALL = re.compile(
    r'\{\s*"name"\s*:\s*"[\w.-]{1,128}"\s*,\s*"(?:arguments|parameters)"\s*:\s*[\{\[]'
)
# Advice to call a tool instead of the call (seen from a 1.5B model: "please use the
# create_folder function with the argument {…}"); counts when it names an offered tool.
TOOL_ADVICE = re.compile(
    r"\b(?:use|call|run|invoke|execute|verwende|benutze|rufe|utilise[zr]?|appelle[zr]?|usa|chiama)"
    r"\s+(?:the\s+|die\s+|den\s+|la\s+|le\s+|l'|il\s+)?[`'\"]?(?P<name>[a-z][a-z0-9_]{2,63})[`'\"]?"
    r"(?:\s+(?:function|tool|funktion|werkzeug|fonction|outil|funzione|strumento))?",
    re.IGNORECASE,
)
# A reply that is one JSON value, bare or in a code fence.
_FENCED = re.compile(r"^```[a-zA-Z]*\s*\n?(?P<body>.*?)\n?```$", re.DOTALL)
_ID_KEY = re.compile(r"^(?:id|\w+_id|\w+_ids)$")
# Words that say something went wrong, in the languages agentur's users write.
_FAILURE_WORDS = re.compile(
    r"\b(?:error|fail\w*|could not|couldn't|cannot|can't|unable|not possible|not found"
    r"|fehler\w*|fehlgeschlagen|konnte\w* nicht|nicht möglich|nicht gefunden|leider"
    r"|erreur\w*|échou\w*|impossible|n'a pas pu|introuvable"
    r"|errore|errori|fallit\w*|impossibile|non è stato possibile|non trovat\w*)",
    re.IGNORECASE,
)


def _raw_result(text: str) -> bool:
    """`text` is nothing but a JSON object (or a list of them) that names ids, or nothing but
    several JSON objects or lists."""
    body = text.strip()
    if fenced := _FENCED.match(body):
        body = fenced.group("body").strip()
    values = _json_values(body)
    return len(values) > 1 or (len(values) == 1 and _names_ids(values[0]))


def _json_values(body: str) -> list[object]:
    """The JSON objects and lists `body` consists of, one after the other; [] when anything
    else is in it."""
    decoder = json.JSONDecoder()
    values: list[object] = []
    position = 0
    while position < len(body):
        if body[position] not in "{[":
            return []
        try:
            value, position = decoder.raw_decode(body, position)
        except ValueError:
            return []
        values.append(value)
        while position < len(body) and body[position].isspace():
            position += 1
    return values


def _names_ids(value: object, depth: int = 0) -> bool:
    """Some object in `value` (nested up to three levels: `{"files": [{"file_id": …}]}`) has
    an id key."""
    if depth > 3:
        return False
    if isinstance(value, dict):
        return any(_ID_KEY.match(str(key)) for key in value) or any(
            _names_ids(item, depth + 1) for item in value.values()
        )
    if isinstance(value, list):
        return any(_names_ids(item, depth + 1) for item in value)
    return False


def answer_problem(text: str, request: str = "", tools: Collection[str] = ()) -> str | None:
    """Why `text` cannot be a run's final answer to `request`, or None when it can; `tools`
    are the names of the tools the run offers."""
    if not any(character.isalnum() for character in text):  # also "****" (seen from a 1.5B model)
        return "it is empty"
    if MARKUP.search(text) or JSON_CALL.search(text):
        return "it contains tool-protocol markup"
    for advice in TOOL_ADVICE.finditer(text):
        if advice.group("name") in tools:
            return (
                f"it tells the user to use {advice.group('name')}, a tool only you can call — "
                "call it yourself"
            )
    if "json" not in request.lower() and _raw_result(text):
        return "it is a tool's raw result (JSON with ids), not an answer in words"
    if CONTEXT_LINE.search(text) or any(
        match.group("title").strip(" :").lower() in CONTEXT_TITLES
        for match in HEADING.finditer(text)
    ):
        return "it repeats agentur's context (round memory, hints or knowledge headers)"
    if any(phrase in text for phrase in CORRECTION_PHRASES):
        return "it repeats agentur's correction instead of answering"
    return None


def states_failure(text: str) -> bool:
    return bool(_FAILURE_WORDS.search(text))

"""What a run may end with: the check of a final answer (a reply without tool calls).

Not accepted as an answer: an empty reply; a reply carrying agentur's own context (the round
context's header and section titles, round-memory and hint lines, knowledge headers) — the
model copied what it was told, not what it found; a reply carrying tool-protocol markup
(`<tool_call>`, `<tool_response>`, `<function…>`, chat-template tokens) that the text-call
recovery did not turn into calls; a reply that is nothing but a JSON object naming workspace ids
(a tool's raw result passed on — seen from a 1.5B model: a file's metadata as the "answer" to a
question about the file), unless the request asked for JSON. Such a reply gets one corrective
message; when the next reply is again not an answer, the lines that make it none are removed,
and what is left is the answer if it is one — otherwise the run ends `failed` with the reason.

After a round in which every tool call failed, the answer must say that something failed; if
it does not even after the correction, the run still ends `completed`, with the failure stated
by agentur under the model's text. Likewise a run asked to change something (write a file,
copy, send; see `requested_change.py`) in which no tool that changes anything succeeded: one
corrective message naming the tools that would, then the answer is accepted only with agentur's
note that nothing was changed — unless the answer itself says what could not be done.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import NoReturn

from agentur.agent.dependencies import RunStatus
from agentur.agent.recover_text_tool_calls import RetryRound
from agentur.agent.redact import redact_text
from agentur.agent.requested_change import asks_for_change
from agentur.agent.run_state import RunState, StopRun
from agentur.agent.trace import TraceKind
from agentur.ai.messages import Role

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
    }
)
_CONTEXT_LINE = re.compile(
    r"\[(?:Context for this round|End of agentur's context)"  # the block's delimiters
    r"|^\s*-\s*(?:round \d+|workflow \S+)\b[^\n]{0,40}\(\d\.\d\d\)"  # memory and hint lines
    r"|\b[a-z][a-z0-9_]{2,63} \((?:ok|error)\): "  # a round's tool results as memory holds them
    r"|^\s*-\s*\[[^\]\n]*\bfile_id\b[^\]\n]*\]",  # a knowledge passage's header
    re.MULTILINE,
)
_HEADING = re.compile(r"^\s*#{1,4}\s*(?P<title>.+?)\s*$", re.MULTILINE)
_MARKUP = re.compile(
    r"</?(?:tool_call|tool_response|tools|function(?:[=\s>]|_call))"
    r"|\[TOOL_CALLS\]|<\|(?:im_start|im_end|eot_id|start_header_id)\|>",
    re.IGNORECASE,
)
# A call written as JSON — even to a tool that is not offered, even with broken JSON after it
# (seen: `{"name": "create_file", "arguments": {…}]}` from a 0.5B model).
_JSON_CALL = re.compile(
    r'\{\s*"name"\s*:\s*"[\w.-]{1,128}"\s*,\s*"(?:arguments|parameters)"\s*:\s*[\{\[]'
)
# Advice to call a tool instead of the call (seen from a 1.5B model: "please use the
# create_folder function with the argument {…}"); counts when it names an offered tool.
_TOOL_ADVICE = re.compile(
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

CORRECTION = (
    "Your last reply is not an answer the user can be given: {problem}. Reply to the user's "
    "request in plain text, in the user's language, from what the tools returned — do not "
    "repeat agentur's context or tool-protocol markup, and never write a tool's response "
    "yourself: results come from agentur after you call the tool. To use a tool, call it "
    "through the tool-calling interface, or reply with nothing but the call as JSON: "
    '{{"name": "<tool>", "arguments": {{...}}}}.'
)
FAILED_TOOLS_CORRECTION = (
    "Every tool call of your last round failed ({errors}). Fix the calls and try again, or "
    "tell the user plainly what could not be done and why."
)
FAILURE_NOTE = "(agentur: the last tool calls failed — {errors})"
CHANGE_CORRECTION = (
    "The user asked you to change something in the workspace, but no tool that changes "
    "anything has succeeded in this run: nothing has been done yet. Do it now by calling the "
    "tool for it ({tools}), or tell the user plainly why it cannot be done."
)
CHANGE_NOTE = "(agentur: nothing was changed in this run — no tool that makes changes succeeded)"


def _raw_result(text: str) -> bool:
    """`text` is a JSON object (or a list of them) that names ids, and nothing else."""
    body = text.strip()
    if fenced := _FENCED.match(body):
        body = fenced.group("body").strip()
    if not body.startswith(("{", "[")):
        return False
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return _names_ids(value)


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
    if _MARKUP.search(text) or _JSON_CALL.search(text):
        return "it contains tool-protocol markup"
    for advice in _TOOL_ADVICE.finditer(text):
        if advice.group("name") in tools:
            return (
                f"it tells the user to use {advice.group('name')}, a tool only you can call — "
                "call it yourself"
            )
    if "json" not in request.lower() and _raw_result(text):
        return "it is a tool's raw result (JSON with ids), not an answer in words"
    if _CONTEXT_LINE.search(text) or any(
        match.group("title").strip(" :").lower() in CONTEXT_TITLES
        for match in _HEADING.finditer(text)
    ):
        return "it repeats agentur's context (round memory, hints or knowledge headers)"
    return None


_BLOCKS = re.compile(
    r"<(?P<tag>tool_call|tool_response|tools|function)\b[^>]*>.*?(?:</(?P=tag)>|$)",
    re.DOTALL | re.IGNORECASE,
)
_EMPTY_FENCE = re.compile(r"```[a-zA-Z]*\s*```")
MIN_SALVAGED_WORDS = 4


# Names and figures: what an answer's facts are made of (a word at a sentence's start does not
# count as a name).
_FACT = re.compile(r"(?<![.!?:\n]\s)(?<!^)\b(?:\d[\d'’.,]*\d|\d|[A-ZÄÖÜÀ-Þ][\w-]{2,})\b")


def _grounded(text: str, request: str, found: str) -> bool:
    """Some name or figure of `text` that the request does not hold came from a tool result."""
    asked, seen = request.lower(), found.lower()
    return any(
        (fact := match.group(0).lower()) not in asked and fact in seen
        for match in _FACT.finditer(text)
    )


def salvaged_answer(text: str, request: str, tools: Collection[str], found: str) -> str | None:
    """`text` without the lines that made it no answer (agentur's context, tool-protocol markup
    and blocks, advice to call a tool), when what is left is an answer with a name or figure
    from this run's tool results (`found`); else None. A small model that ignores a correction
    often still wrote the answer, between copied context; what it copied from hints or memory
    alone is not taken."""
    kept = []
    for line in _BLOCKS.sub("", text).splitlines():
        heading = _HEADING.match(line)
        if (
            _CONTEXT_LINE.search(line)
            or _MARKUP.search(line)
            or _JSON_CALL.search(line)
            or (heading and heading.group("title").strip(" :").lower() in CONTEXT_TITLES)
            or any(a.group("name") in tools for a in _TOOL_ADVICE.finditer(line))
        ):
            continue
        kept.append(line.rstrip())
    cleaned = re.sub(r"\n{3,}", "\n\n", _EMPTY_FENCE.sub("", "\n".join(kept))).strip()
    if len(cleaned.split()) < MIN_SALVAGED_WORDS or answer_problem(cleaned, request, tools):
        return None
    return cleaned if _grounded(cleaned, request, found) else None


def states_failure(text: str) -> bool:
    return bool(_FAILURE_WORDS.search(text))


def _writing_tools(run: RunState) -> list[str]:
    """The offered tools that change something, when the request asked for a change that no
    tool has made yet; else empty."""
    if run.made_a_change or run.offer is None:
        return []
    writers = sorted(tool.name for tool in run.offer.tools if not tool.read_only)
    return writers if writers and asks_for_change(run.prepared.prompt) else []


def settle_final_answer(run: RunState, text: str) -> str:
    """The text the run ends with. Raises `RetryRound` after adding a corrective message,
    `StopRun` when the corrected reply is still no answer."""
    offered = run.offer.by_name if run.offer else {}
    problem = answer_problem(text, run.prepared.prompt, offered)
    failed_errors = run.failed_round_errors
    said_failure = states_failure(text)
    unmade = [] if problem or failed_errors or said_failure else _writing_tools(run)
    if problem is None and (not failed_errors or said_failure) and not unmade:
        run.answer_corrected = False
        return text
    reason = problem or ("tool calls failed" if failed_errors else "no change made as asked")
    run.trace.add(
        TraceKind.answer_rejected,
        {"problem": reason, "text": redact_text(text[:2_000])},
        round_index=run.rounds,
    )
    if unmade:
        if run.change_corrected:
            return f"{text.rstrip()}\n\n{CHANGE_NOTE}"
        run.change_corrected = True
        _correct(run, text, CHANGE_CORRECTION.format(tools=", ".join(unmade[:8])))
    errors = "; ".join(failed_errors)[:600]
    if run.answer_corrected:
        if problem is not None:
            found = "\n".join(m.content for m in run.conversation.turns if m.role is Role.tool)
            salvaged = salvaged_answer(text, run.prepared.prompt, offered, found)
            if salvaged is None:
                raise StopRun(
                    RunStatus.failed,
                    f"the model's answer was not accepted after a correction: {problem}",
                )
            run.trace.add(
                TraceKind.answer_rejected,
                {"problem": problem, "salvaged": redact_text(salvaged[:2_000])},
                round_index=run.rounds,
            )
            return salvaged
        return f"{text.rstrip()}\n\n{FAILURE_NOTE.format(errors=errors)}"
    run.answer_corrected = True
    _correct(
        run,
        text,
        CORRECTION.format(problem=problem)
        if problem is not None
        else FAILED_TOOLS_CORRECTION.format(errors=errors),
    )


def _correct(run: RunState, text: str, correction: str) -> NoReturn:
    run.conversation.add_assistant(text, ())
    run.conversation.add_user(correction)
    raise RetryRound

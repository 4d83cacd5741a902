"""Tool calls a model wrote as text instead of through the tool-calling interface.

Small local models (and chat templates that a server does not parse) often answer a tool
request with the call spelled out in the text: Hermes/Qwen `<tool_call>{…}</tool_call>` or
`<tools>{…}</tools>`, Llama `<function=name>{…}</function>`, `<function name="…">`, Mistral
`[TOOL_CALLS][…]`, a fenced ```json block with name and arguments, bare JSON, or JSON in
doubled braces `{{…}}`. `find_text_tool_calls` recovers such calls (for models whose spec
allows it) and says whether the text still looks like a tool call — text that does must never
be taken for a final answer.

Untagged JSON counts only when it names an offered tool or carries both a name and arguments,
so an answer that merely contains JSON is not mistaken for a call. JSON that does not parse
(unescaped quotes, a cut-off end) is repaired (json-repair) when it names an offered tool; what
cannot be repaired still counts as a call, so it is never taken for an answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

import json_repair

from agentur.ai.messages import ToolCall

_TAGGED = re.compile(
    r"<(?P<tag>tool_call|tools)>\s*(?P<body>.*?)\s*(?:</(?P=tag)>|$)"
    r"|\[TOOL_CALLS\]\s*(?P<mistral>.*?)(?=\n\n|$)",
    re.DOTALL,
)
_FUNCTION = re.compile(
    r"<function(?:=(?P<eq>[\w.-]+)|\s+name\s*=\s*[\"']?(?P<attr>[\w.-]+)[\"']?(?P<attrs>[^>]*?))"
    r"\s*(?:/>|>(?P<body>.*?)(?:</function>|$))",
    re.DOTALL,
)
_PARAMETER = re.compile(r"<parameter=(?P<key>[\w.-]+)>\s*(?P<value>.*?)\s*</parameter>", re.DOTALL)
_ARGUMENTS_ATTRIBUTE = re.compile(
    r"(?:arguments|parameters)\s*=\s*(?P<q>[\"'])(?P<json>.*?)(?P=q)", re.DOTALL
)
_JSON_START = re.compile(r'[\[{]*\{\s*"(?:name|function|type)"\s*:')
_FENCED = re.compile(r"```[\w-]*\s*\n?(?P<body>.*?)```", re.DOTALL)
_NAMED = re.compile(r'"name"\s*:\s*"(?P<name>[\w.-]{1,128})"')
# What any tool-call spelling starts with; text holding one of these is held back from a
# visitor until it is clear whether it is an answer.
TAG_MARKERS = ("<tool_call", "<tools>", "<function", "[TOOL_CALLS]")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


@dataclass(frozen=True, slots=True)
class TextToolCalls:
    calls: tuple[ToolCall, ...]  # recovered calls, in the order written
    remaining: str  # the text without the tool-call fragments
    looks_like_call: bool  # some part of the text is a tool call (recovered or not)


def find_text_tool_calls(
    text: str, offered: Collection[str], *, id_prefix: str = "text_call"
) -> TextToolCalls:
    """Recover tool calls written in `text`; `offered` are the tool names of this round."""
    found: list[tuple[int, int, dict[str, Any] | None]] = []
    empty: list[tuple[int, int]] = []  # `<tools></tools>`: no call, and not part of the text
    for match in _TAGGED.finditer(text):
        body = match.group("body") if match.group("tag") else match.group("mistral")
        if not (body or "").strip():
            empty.append((match.start(), match.end()))
            continue
        objects = list(_json_objects(body or ""))
        found += [(match.start(), match.end(), _call_dict(o)) for o in objects] or [
            (match.start(), match.end(), None)
        ]
    for match in _FUNCTION.finditer(text):
        found.append((match.start(), match.end(), _function_call(match)))
    if not found:
        found = list(_untagged(text, offered))
    # A call written twice (in a plan and again in its summary) is one call.
    distinct: dict[str, dict[str, Any]] = {}
    for _, _, call in sorted(found, key=lambda f: f[0]):
        if call:
            key = call["name"] + json.dumps(call["arguments"], sort_keys=True, default=str)
            distinct.setdefault(key, call)
    calls = tuple(
        ToolCall(f"{id_prefix}_{index}", call["name"], call["arguments"])
        for index, call in enumerate(distinct.values())
    )
    remaining = _without(text, [(s, e) for s, e, _ in found] + empty)
    return TextToolCalls(calls, remaining, bool(found))


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    kept, position = [], 0
    for start, end in sorted(spans):  # spans may nest (<tool_call><function=…>)
        if start > position:
            kept.append(text[position:start])
        position = max(position, end)
    kept.append(text[position:])
    return "".join(kept).strip()


def _untagged(
    text: str, offered: Collection[str]
) -> Iterator[tuple[int, int, dict[str, Any] | None]]:
    """Fenced blocks and JSON objects in the text (also in doubled braces) that name an
    offered tool or have the shape of a call."""
    fenced = [(m.start(), m.end(), m.group("body")) for m in _FENCED.finditer(text)]
    spans = list(fenced)
    for match in _JSON_START.finditer(text):
        start = match.start()
        if any(s <= start < e for s, e, _ in spans):  # inside a fence or an object read
            continue
        body = _undouble(text[start:])
        try:
            _, length = json.JSONDecoder().raw_decode(body)
        except ValueError:
            if _names_offered(body, offered):  # broken JSON naming a tool: repaired below
                spans.append((start, len(text), body))
            continue
        doubled = body != text[start:]
        # doubled braces shift every offset: the rest of the text is read as one body
        spans.append(
            (start, len(text), body) if doubled else (start, start + length, body[:length])
        )
    for start, end, body in spans:
        objects = list(_json_objects(body))
        if not objects and _names_offered(body, offered):
            # None when even the repair yields no call: still a call, never an answer.
            repaired = _repaired(body)
            call = _call_dict(repaired) if isinstance(repaired, dict) else None
            yield start, end, call if call and call["name"] in offered else None
            continue
        for candidate in objects:
            call = _call_dict(candidate)
            if call and (call["name"] in offered or _has_arguments(candidate)):
                yield start, end, call


def _names_offered(body: str, offered: Collection[str]) -> bool:
    match = _NAMED.search(body)
    return bool(match) and match.group("name") in offered


def _repaired(body: str) -> Any:
    try:
        return json_repair.loads(body)
    except (ValueError, RecursionError):
        return None


def _has_arguments(candidate: dict[str, Any]) -> bool:
    inner = candidate.get("function") if isinstance(candidate.get("function"), dict) else candidate
    return any(key in inner for key in _ARGUMENT_KEYS)


def _json_objects(body: str) -> Iterator[dict[str, Any]]:
    """The JSON objects in `body` (an object, a list of them, or doubled braces), and those
    that follow it on the next lines (one call per line)."""
    body = body.strip()
    decoder = json.JSONDecoder()
    for variant in (body, _undouble(body)):
        objects: list[dict[str, Any]] = []
        position = 0
        while position < len(variant):
            try:
                value, position = decoder.raw_decode(variant, position)
            except ValueError:
                break
            items = value if isinstance(value, list) else [value]
            objects += [item for item in items if isinstance(item, dict)]
            while position < len(variant) and variant[position].isspace():
                position += 1
        if objects:
            yield from objects
            return


def _undouble(body: str) -> str:
    # `{{"name": "x", "arguments": {{"a": 1}}}}`: templates' escaped braces, copied as written.
    return body.replace("{{", "{").replace("}}", "}") if body.startswith("{{") else body


def _call_dict(value: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(value.get("function"), dict):  # {"type": "function", "function": {…}}
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[\w.-]{1,128}", name):
        return None
    arguments: Any = next((value[k] for k in _ARGUMENT_KEYS if k in value), {})
    if isinstance(arguments, str):
        arguments = _loads(arguments)
    if arguments is None:
        arguments = {}
    return {"name": name, "arguments": arguments} if isinstance(arguments, dict) else None


def _function_call(match: re.Match[str]) -> dict[str, Any] | None:
    name = match.group("eq") or match.group("attr")
    body = (match.group("body") or "").strip()
    attributes = _ARGUMENTS_ATTRIBUTE.search(match.group("attrs") or "")
    arguments: Any = {}
    if body.startswith("{"):
        arguments = next(_json_objects(body), None)
    elif parameters := _PARAMETER.findall(body):  # Qwen3-Coder: <parameter=k>v</parameter>
        arguments = {key: _loads(value, keep_text=True) for key, value in parameters}
    elif attributes:
        arguments = _loads(attributes.group("json"))
    elif body:  # prose or something cut off: not a call that can run
        arguments = None
    return {"name": name, "arguments": arguments} if isinstance(arguments, dict) else None


def _loads(text: str, *, keep_text: bool = False) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text if keep_text else None


_JSON_CALL_PREFIX = re.compile(r'\{+\s*(?:"(?:n(?:a(?:m(?:e)?)?)?|f\w*|t(?:y(?:p(?:e)?)?)?)?)?$')
_HOLD_MARKERS = (*TAG_MARKERS, "```", "{{")


def _verdict(held: str) -> str:
    """ "call" when `held` starts like a written tool call, "open" while it still may,
    "plain" when it cannot."""
    if held.startswith(_HOLD_MARKERS) or _JSON_START.match(held):
        return "call"
    if any(marker.startswith(held) for marker in _HOLD_MARKERS) or _JSON_CALL_PREFIX.match(held):
        return "open"
    return "plain"


class CallTextGuard:
    """Passes streamed text on but holds it back from the first sign of a written tool call
    (or a code fence) to the end of the answer, so a reader never sees a raw call; the caller
    decides at the end whether `held` is shown."""

    def __init__(self) -> None:
        self.held = ""
        self._holding = False

    def feed(self, piece: str) -> str:
        self.held += piece
        if self._holding:
            return ""
        shown: list[str] = []
        while self.held:
            start = min((i for c in "<{`[" if (i := self.held.find(c)) >= 0), default=-1)
            if start < 0:
                shown.append(self.held)
                self.held = ""
                break
            shown.append(self.held[:start])
            self.held = self.held[start:]
            verdict = _verdict(self.held)
            if verdict == "call":
                self._holding = True
                break
            if verdict == "open":
                break
            shown.append(self.held[0])
            self.held = self.held[1:]
        return "".join(shown)

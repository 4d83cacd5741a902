"""Calls that change something are not run twice in a run with the same arguments.

Small models repeat a step they already took (seen from a 1.5B model: it created a folder, then
wrote its whole plan again as text with the same `create_folder` call first, which failed
because the folder existed, and never reached the copy). A repeated send or write is also the
kind of duplicate a user least wants. So an identical call to a tool that is not read-only,
after the same call succeeded in this run, is answered from the first call's result with a
note to go on, instead of being run again. A read-only call runs again (what it reads may have
changed), but when it returns what the same call returned before, the result says so — a small
model otherwise repeats a search that found nothing round after round.

A round made of nothing but such repeats is a loop: at temperature 0 a 1.5B model repeated one
search five rounds in a row with the note in every result. The next round's context then ends
with `LOOP_NOTICE`, which restates the request — the last thing the model reads, where the note
inside a result, followed by the whole round context, went unheeded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from agentur.ai.messages import ToolCall
from agentur.tool_loop.run_tool import ToolOutcome
from agentur.tool_loop.tool import Tool

ALREADY_DONE = (
    "Not run again: this exact call already succeeded in round {round} with the result: "
    "{result}. Go on with the next step of the request, or answer if all is done."
)
RESULT_CHARS = 600
SAME_AGAIN = (
    "\n(agentur: the same call returned the same in round {round}; repeating it will not "
    "find more — change the arguments or use another tool)"
)
LOOP_TITLE = "Your last round repeated itself"
LOOP_NOTICE = (
    "## " + LOOP_TITLE + "\n"
    "Every call of your last round ({calls}) was a call you had already made, with the same "
    "arguments and the same result (first in round {round}); calling it again will not change "
    "that. The user's request: «{request}». Do not repeat the call: answer the request now from "
    "the results above, or take the different step it still needs."
)
REQUEST_CHARS = 300


def _key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


@dataclass(frozen=True, slots=True)
class Change:
    """A successful call of a tool that changes something: its round, tool and result."""

    round_index: int
    tool: str
    result: str

    def describe(self) -> str:
        """ "write_file → summary.txt (round 1)": the tool, and what its result names."""
        try:
            named = json.loads(self.result).get("name")
        except (ValueError, AttributeError):
            named = None
        target = f" → {named}" if isinstance(named, str) and named else ""
        return f"{self.tool}{target} (round {self.round_index})"


@dataclass
class SucceededCalls:
    """This run's successful calls of tools that change something, by name and arguments."""

    by_key: dict[str, Change] = field(default_factory=dict)
    # Read-only calls: the round of the first and its result.
    reads: dict[str, tuple[int, str]] = field(default_factory=dict)
    # Calls of this run answered as repeats, by id.
    repeated_ids: set[str] = field(default_factory=set)

    def record(self, round_index: int, tool: Tool | None, outcome: ToolOutcome) -> None:
        if tool is not None and not tool.read_only and not outcome.is_error:
            change = Change(round_index, outcome.call.name, outcome.content)
            self.by_key.setdefault(_key(outcome.call), change)

    def repeat(self, tool: Tool | None, call: ToolCall) -> ToolOutcome | None:
        """The answer to `call` when it repeats a successful one, else None (run it)."""
        if tool is None or tool.read_only or (earlier := self.by_key.get(_key(call))) is None:
            return None
        note = ALREADY_DONE.format(round=earlier.round_index, result=earlier.result[:RESULT_CHARS])
        self.repeated_ids.add(call.id)
        return ToolOutcome(call, note, is_error=False, duration_ms=0.0)

    def mark_repeated_read(
        self, round_index: int, tool: Tool | None, outcome: ToolOutcome
    ) -> ToolOutcome:
        """`outcome` of a read-only call, noted when an identical call returned the same."""
        if tool is None or not tool.read_only or outcome.is_error:
            return outcome
        earlier = self.reads.setdefault(_key(outcome.call), (round_index, outcome.content))
        if earlier[0] == round_index or earlier[1] != outcome.content:
            return outcome
        self.repeated_ids.add(outcome.call.id)
        return replace(outcome, content=outcome.content + SAME_AGAIN.format(round=earlier[0]))

    def loop_notice(self, outcomes: list[ToolOutcome], request: str) -> str:
        """`LOOP_NOTICE` when every call of a round was answered as a repeat, else ""."""
        if not outcomes or any(o.call.id not in self.repeated_ids for o in outcomes):
            return ""
        names = ", ".join(dict.fromkeys(o.call.name for o in outcomes))
        first = min(self._first_round(o.call) for o in outcomes)
        asked = " ".join(request.split())
        if len(asked) > REQUEST_CHARS:
            asked = asked[:REQUEST_CHARS].rstrip() + " …"
        return LOOP_NOTICE.format(calls=names, round=first, request=asked)

    def _first_round(self, call: ToolCall) -> int:
        """The round of the first of the identical calls that `call` repeated."""
        key = _key(call)
        change = self.by_key.get(key)
        return change.round_index if change is not None else self.reads[key][0]

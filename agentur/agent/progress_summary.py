"""The FINAL text of a run that stopped early (budget, rounds, failure, cancellation).

Built from the run's own record without another model call — a run out of budget must not
spend more, and a failed provider cannot be asked — so the user always learns what was done.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

MAX_LISTED_STEPS = 30
MAX_ARGUMENT_CHARS = 120


@dataclass(frozen=True, slots=True)
class Step:
    round_index: int
    tool_name: str
    arguments: dict
    is_error: bool


def _short(arguments: dict) -> str:
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_ARGUMENT_CHARS else text[: MAX_ARGUMENT_CHARS - 1] + "…"


def progress_summary(reason: str, rounds: int, steps: list[Step], last_model_text: str) -> str:
    lines = [f"I stopped before finishing: {reason}."]
    if steps:
        lines.append(f"Progress in {rounds} round(s), {len(steps)} tool call(s):")
        for step in steps[-MAX_LISTED_STEPS:]:
            outcome = "failed" if step.is_error else "done"
            lines.append(
                f"- round {step.round_index}: {step.tool_name} {_short(step.arguments)} — {outcome}"
            )
        if len(steps) > MAX_LISTED_STEPS:
            lines.append(f"(and {len(steps) - MAX_LISTED_STEPS} earlier tool calls)")
    else:
        lines.append(f"No tool was run ({rounds} round(s)).")
    if last_model_text.strip():
        lines.append(f"Last note from the model: {last_model_text.strip()}")
    lines.append("Everything done so far is saved; ask me to continue to go on from here.")
    return "\n".join(lines)

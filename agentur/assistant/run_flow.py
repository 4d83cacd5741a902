"""Runs a flow deterministically: steps in order, visitor input validated by rules,
API steps through the validated catalog client, no model anywhere.

The position lives in the conversation state (`state["flow"]`), so a flow spans turns: an
`ask` or `choice` step stops the turn and the next visitor message answers it.
"""

from __future__ import annotations

import json
import re
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Any

from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.definition import (
    AskStep,
    AssistantDefinition,
    CallApiStep,
    ChoiceStep,
    Flow,
    HandoffStep,
    SayStep,
    Validation,
)
from agentur.assistant.escalation_menu import escalation_menu
from agentur.assistant.events import TurnEvent, action, chunk
from agentur.assistant.text_tokens import fold
from agentur.errors import AgenturError

CANCEL_WORDS = {"cancel", "stop", "abbrechen", "annuler", "annulla", "cancelar"}
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
PHONE = re.compile(r"\+?[0-9 ()/-]{6,20}")
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
MAX_STEPS_PER_TURN = 200  # a choice can loop back; a turn still ends


@dataclass
class FlowOutcome:
    events: list[TurnEvent] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    finished: bool = False

    def say(self, text: str) -> None:
        self.events.append(chunk(text if not self.texts else "\n" + text))
        self.texts.append(text)


def fill(template: str, variables: dict[str, Any]) -> str:
    """`{name}` replaced by the variable; unknown names stay as written (no format-string
    features, so a visitor's input can never reach attributes or indexes)."""
    return PLACEHOLDER.sub(lambda m: str(variables.get(m.group(1), m.group(0))), template)


def validate_input(text: str, rule: Validation) -> str | float | None:
    value = text.strip()
    if not value or len(value) > rule.max_length:
        return None
    if rule.kind == "email":
        return value if EMAIL.fullmatch(value) else None
    if rule.kind == "phone":
        return value if PHONE.fullmatch(value) else None
    if rule.kind == "regex":
        return value if re.fullmatch(rule.pattern or "", value) else None
    if rule.kind == "number":
        try:
            number = float(value.replace(",", "."))
        except ValueError:
            return None
        if (rule.min is not None and number < rule.min) or (
            rule.max is not None and number > rule.max
        ):
            return None
        return number
    return value


def pick_option(text: str, step: ChoiceStep) -> int | None:
    answer = fold(text.strip())
    if answer.isdigit() and 1 <= int(answer) <= len(step.options):
        return int(answer) - 1
    for index, option in enumerate(step.options):
        if answer in (fold(option.label), fold(option.value)):
            return index
    return None


def _dig(data: Any, path: str | None) -> Any:
    for key in (path or "").split(".") if path else []:
        data = data.get(key) if isinstance(data, dict) else None
    return data


@dataclass(eq=False)
class FlowRunner:
    definition: AssistantDefinition
    api: AssistantApi | None
    language: str
    now: datetime
    _: KW_ONLY
    email_available: bool

    async def start(self, flow: Flow, state: dict[str, Any]) -> FlowOutcome:
        state["flow"] = {"id": flow.id, "step": 0, "variables": {}, "awaiting": False}
        return await self._run(flow, state, None)

    async def resume(self, state: dict[str, Any], text: str) -> FlowOutcome:
        flow = self.definition.flow(state["flow"]["id"])
        if flow is None or fold(text.strip()) in CANCEL_WORDS:
            state.pop("flow", None)
            outcome = FlowOutcome(finished=True)
            outcome.events.append(action("flow_cancelled"))
            return outcome
        return await self._run(flow, state, text)

    async def _run(self, flow: Flow, state: dict[str, Any], text: str | None) -> FlowOutcome:
        outcome = FlowOutcome()
        position = state["flow"]
        variables: dict[str, Any] = position["variables"]
        ids = [step.id for step in flow.steps]
        for _ in range(MAX_STEPS_PER_TURN):
            if position["step"] >= len(flow.steps):
                break
            step = flow.steps[position["step"]]
            outcome.events.append(action("flow_step", flow=flow.id, step=step.id, kind=step.kind))
            if isinstance(step, SayStep):
                outcome.say(fill(step.text, variables))
            elif isinstance(step, AskStep | ChoiceStep):
                if not position["awaiting"] or text is None:
                    self._prompt(step, variables, outcome)
                    position["awaiting"] = True
                    return outcome
                answer, text = text, None
                position["awaiting"] = False
                if isinstance(step, AskStep):
                    value = validate_input(answer, step.validation)
                    if value is None:
                        outcome.say(fill(step.error_message, variables))
                        self._prompt(step, variables, outcome)
                        position["awaiting"] = True
                        return outcome
                    variables[step.variable] = value
                else:
                    index = pick_option(answer, step)
                    if index is None:
                        self._prompt(step, variables, outcome)
                        position["awaiting"] = True
                        return outcome
                    option = step.options[index]
                    variables[step.variable] = option.value
                    if option.next_step:
                        position["step"] = ids.index(option.next_step)
                        continue
            elif isinstance(step, CallApiStep):
                if not await self._call(step, variables, outcome):
                    break
            elif isinstance(step, HandoffStep):
                events, text_out = escalation_menu(
                    self.definition,
                    step.help_desk,
                    self.language,
                    self.now,
                    email_available=self.email_available,
                )
                outcome.events += events
                outcome.texts.append(text_out)
                break
            position["step"] += 1
        state.pop("flow", None)
        outcome.finished = True
        outcome.events.append(action("flow_finished", flow=flow.id))
        return outcome

    def _prompt(
        self, step: AskStep | ChoiceStep, variables: dict[str, Any], outcome: FlowOutcome
    ) -> None:
        outcome.say(fill(step.prompt, variables))
        if isinstance(step, ChoiceStep):
            options = [{"label": o.label, "value": o.value} for o in step.options]
            outcome.events.append(action("choice", step=step.id, options=options))
        else:
            outcome.events.append(action("ask", step=step.id, validation=step.validation.kind))

    async def _call(
        self, step: CallApiStep, variables: dict[str, Any], outcome: FlowOutcome
    ) -> bool:
        if self.api is None:
            outcome.say(step.error_message)
            return False
        try:
            response = await self.api.call(
                step.endpoint,
                {k: fill(v, variables) for k, v in step.path_params.items()},
                {k: fill(v, variables) for k, v in step.query.items()} or None,
                step.body,
            )
        except AgenturError:
            outcome.say(step.error_message)
            return False
        if response.status >= 400:
            outcome.say(step.error_message)
            return False
        value: Any = response.text
        if step.result_path:
            try:
                value = _dig(json.loads(response.text), step.result_path)
            except ValueError:
                value = None
        variables[step.result_variable] = value
        return True

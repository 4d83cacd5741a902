"""The escalation menu of a help desk: its options, each marked open or closed right now.

E-mail addresses stay server-side (the visitor writes through the escalation endpoint);
phone numbers and chat queues are shown, as the visitor needs them to get in touch.
"""

from __future__ import annotations

from datetime import datetime

from agentur.assistant.definition import AssistantDefinition, HelpDesk
from agentur.assistant.events import TurnEvent, action, chunk
from agentur.assistant.opening_hours import is_open
from agentur.assistant.phrases import phrase


def menu_options(desk: HelpDesk, now: datetime) -> list[dict[str, object]]:
    options = []
    for index, option in enumerate(desk.options):
        options.append(
            {
                "index": index,
                "kind": option.kind,
                "label": option.label or option.kind,
                "contact": None if option.kind == "email" else option.address,
                "open_now": is_open(option.hours, now),
                "hours": option.hours.model_dump() if option.hours else None,
            }
        )
    return options


def escalation_menu(
    definition: AssistantDefinition, desk_key: str | None, language: str, now: datetime
) -> tuple[list[TurnEvent], str]:
    desk = definition.help_desk(desk_key) or definition.help_desk(None)
    if desk is None:
        text = phrase("no_help_desk", language)
        return [chunk(text), action("escalation_menu", help_desk=None, options=[])], text
    options = menu_options(desk, now)
    lines = [phrase("escalation_intro", language, desk=desk.name)]
    for option in options:
        contact = f": {option['contact']}" if option["contact"] else ""
        lines.append(f"- {option['label']}{contact}")
    text = "\n".join(lines)
    menu = action(
        "escalation_menu",
        help_desk={"id": desk.id, "name": desk.name, "description": desk.description},
        options=options,
    )
    return [chunk(text), menu], text

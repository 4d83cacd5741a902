"""The escalation menu of a help desk: the options a visitor can use from here, each marked
open or closed right now.

Only options that work are offered: e-mail only with an SMTP server configured (the visitor
writes through the escalation endpoint, the address stays server-side), a chat only where its
address is the web address of a live chat (agentur serves no live chat itself, so a bare queue
name would lead nowhere), a phone number always.
"""

from __future__ import annotations

from datetime import datetime

from agentur.assistant.definition import AssistantDefinition, EscalationOption, HelpDesk
from agentur.assistant.events import TurnEvent, action, chunk
from agentur.assistant.opening_hours import is_open
from agentur.assistant.phrases import phrase

WEB_SCHEMES = ("http://", "https://")


def is_usable(option: EscalationOption, *, email_available: bool) -> bool:
    if option.kind == "email":
        return email_available
    if option.kind == "chat":
        return option.address.lower().startswith(WEB_SCHEMES)
    return True


def usable_options(desk: HelpDesk, *, email_available: bool) -> list[EscalationOption]:
    return [o for o in desk.options if is_usable(o, email_available=email_available)]


def menu_options(
    desk: HelpDesk, now: datetime, *, email_available: bool
) -> list[dict[str, object]]:
    options = []
    for index, option in enumerate(desk.options):
        if not is_usable(option, email_available=email_available):
            continue
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
    definition: AssistantDefinition,
    desk_key: str | None,
    language: str,
    now: datetime,
    *,
    email_available: bool,
) -> tuple[list[TurnEvent], str]:
    desk = definition.help_desk(desk_key) or definition.help_desk(None)
    options = menu_options(desk, now, email_available=email_available) if desk else []
    if desk is None or not options:
        text = phrase("no_help_desk", language)
        return [chunk(text), action("escalation_menu", help_desk=None, options=[])], text
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

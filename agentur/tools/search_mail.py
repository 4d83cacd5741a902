"""`search_mail`: messages of one mailbox by sender, recipient, subject, date and text."""

from __future__ import annotations

import imaplib
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.mail_client import headers, imap_string, search, select
from agentur.tools.connection_access import mail_connection, shown_fields, with_imap
from agentur.tools.tool import Tool, ToolContext


class SearchMailArguments(BaseModel):
    connection_id: str | None = None
    mailbox: str = Field(default="INBOX", max_length=500)
    from_: str | None = Field(default=None, alias="from", max_length=320)
    to: str | None = Field(default=None, max_length=320)
    subject: str | None = Field(default=None, max_length=500)
    text: str | None = Field(default=None, max_length=500, description="In headers or body.")
    since: date | None = Field(default=None, description="Arrived on or after this day.")
    before: date | None = Field(default=None, description="Arrived before this day.")
    limit: int = Field(default=20, ge=1, le=1000)

    model_config = {"populate_by_name": True}


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _criteria(args: SearchMailArguments) -> list[bytes]:
    criteria: list[bytes] = []
    for key, value in (("FROM", args.from_), ("TO", args.to), ("SUBJECT", args.subject),
                       ("TEXT", args.text)):  # fmt: skip
        if value:
            criteria += [key.encode(), imap_string(value, f"the {key.lower()} value")]
    for key, day in (("SINCE", args.since), ("BEFORE", args.before)):
        if day:
            # IMAP dates use English month names whatever the process locale is.
            criteria += [key.encode(), f"{day.day}-{MONTHS[day.month - 1]}-{day.year}".encode()]
    return criteria


async def search_mail(args: SearchMailArguments, context: ToolContext) -> dict[str, Any]:
    mail = await mail_connection(context, args.connection_id)
    limit = min(args.limit, mail.limits.mail_max_search_results)

    def work(imap: imaplib.IMAP4) -> dict[str, Any]:
        select(imap, args.mailbox)
        uids = search(imap, _criteria(args))
        return {
            "mailbox": args.mailbox,
            "total": len(uids),
            "messages": headers(imap, uids[:limit]),
            "more": len(uids) > limit,
        }

    found = await with_imap(mail, work)
    found["messages"] = [
        await shown_fields(context, mail.connection, message, ("from", "to", "cc", "subject"))
        for message in found["messages"]
    ]
    return {"connection_id": mail.connection.id, **found}


TOOLS: list[Tool] = [
    Tool("search_mail", "Search e-mails (newest first) by from, to, subject, text and date "
         "range; returns uid, sender, subject and date of each.",
         SearchMailArguments, search_mail, read_only=True, toolbox="email"),
]  # fmt: skip

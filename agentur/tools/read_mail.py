"""`read_mail`: one message — headers, a window of its body, the list of its attachments."""

from __future__ import annotations

import imaplib
from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.mail_client import fetch_message, select
from agentur.connections.mail_parts import body_text, describe_attachments
from agentur.tools.connection_access import mail_connection, shown_fields, with_imap
from agentur.tools.tool import Tool, ToolContext
from agentur.workspace.text_window import window


class ReadMailArguments(BaseModel):
    connection_id: str | None = None
    mailbox: str = Field(default="INBOX", max_length=500)
    uid: int = Field(ge=1, description="The uid from search_mail.")
    offset: int = Field(default=0, ge=0, description="Character offset into the body.")


async def read_mail(args: ReadMailArguments, context: ToolContext) -> dict[str, Any]:
    mail = await mail_connection(context, args.connection_id)
    limits = mail.limits

    def work(imap: imaplib.IMAP4) -> dict[str, Any]:
        select(imap, args.mailbox)
        message = fetch_message(imap, args.uid, limits.mail_max_message_bytes)
        body = window(
            body_text(message), args.offset, limits.mail_body_window_chars,
            limits.mail_body_window_chars,
        )  # fmt: skip
        return {
            "uid": args.uid,
            "from": str(message.get("from", "")),
            "to": str(message.get("to", "")),
            "cc": str(message.get("cc", "")),
            "subject": str(message.get("subject", "")),
            "date": str(message.get("date", "")),
            "message_id": str(message.get("message-id", "")),
            "body": body.content,
            "body_offset": body.offset,
            "body_length": body.total_length,
            "next_offset": body.next_offset,
            "attachments": describe_attachments(message),
        }

    read = await shown_fields(
        context, mail.connection, await with_imap(mail, work),
        ("from", "to", "cc", "subject", "body"),
    )  # fmt: skip
    return {"connection_id": mail.connection.id, **read}


TOOLS: list[Tool] = [
    Tool("read_mail", "Read one e-mail by uid: headers, a window of the body (offset for more) "
         "and its attachments (save one with save_attachment).",
         ReadMailArguments, read_mail, read_only=True, toolbox="email"),
]  # fmt: skip

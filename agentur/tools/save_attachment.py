"""`save_attachment`: an e-mail attachment becomes a workspace file. It inherits the mail
connection's `neutralize` flag, so PII in it is neutralized before any model sees it."""

from __future__ import annotations

import imaplib
from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.mail_client import fetch_message, select
from agentur.connections.mail_parts import attachment
from agentur.tools.connection_access import mail_connection, with_imap
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import save_bytes
from agentur.tools.workspace_files import describe


class SaveAttachmentArguments(BaseModel):
    connection_id: str | None = None
    mailbox: str = Field(default="INBOX", max_length=500)
    uid: int = Field(ge=1)
    index: int = Field(default=0, ge=0, description="The attachment's index from read_mail.")
    folder_id: str | None = None
    name: str | None = Field(default=None, description="File name; default the attachment's.")


async def save_attachment(args: SaveAttachmentArguments, context: ToolContext) -> dict[str, Any]:
    mail = await mail_connection(context, args.connection_id)

    def work(imap: imaplib.IMAP4) -> tuple[str, str, bytes]:
        select(imap, args.mailbox)
        message = fetch_message(imap, args.uid, mail.limits.mail_max_message_bytes)
        return attachment(message, args.index)

    filename, content_type, data = await with_imap(mail, work)
    file = await save_bytes(
        context, args.name or filename, data, folder_id=args.folder_id,
        neutralize=mail.connection.neutralize, mime_type=content_type,
    )  # fmt: skip
    return {**describe(file), "neutralize": file.neutralize, "from_uid": args.uid}


TOOLS: list[Tool] = [
    Tool("save_attachment", "Save an e-mail attachment as a workspace file (then read it "
         "with read_file or the document tools).",
         SaveAttachmentArguments, save_attachment, toolbox="email"),
]  # fmt: skip

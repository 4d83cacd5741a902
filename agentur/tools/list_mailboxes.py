"""`list_mailboxes`: the folders of a mail connection."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.mail_client import list_mailboxes as imap_list
from agentur.tools.connection_access import mail_connection, with_imap
from agentur.tools.tool import Tool, ToolContext


class MailConnectionArguments(BaseModel):
    connection_id: str | None = Field(
        default=None, description="The mail connection; may be left out if you have only one."
    )


async def list_mailboxes(args: MailConnectionArguments, context: ToolContext) -> dict[str, Any]:
    mail = await mail_connection(context, args.connection_id)
    return {"connection_id": mail.connection.id, "mailboxes": await with_imap(mail, imap_list)}


TOOLS: list[Tool] = [
    Tool("list_mailboxes", "List the mailboxes (folders) of your mail connection.",
         MailConnectionArguments, list_mailboxes, read_only=True, toolbox="email"),
]  # fmt: skip

"""`send_mail`: an e-mail through the connection's SMTP server, with workspace files attached.
Success is reported only after the server accepted the message; its reply is returned."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.mail_client import send
from agentur.connections.reach import pinned_address
from agentur.errors import InvalidInputError, TooLargeError
from agentur.tools.connection_access import mail_connection
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service


class SendMailArguments(BaseModel):
    connection_id: str | None = None
    to: list[str] = Field(min_length=1, max_length=100)
    cc: list[str] = Field(default_factory=list, max_length=100)
    subject: str = Field(max_length=998)
    body: str = Field(max_length=1_000_000)
    attachment_file_ids: list[str] = Field(default_factory=list, max_length=50)
    in_reply_to: str | None = Field(default=None, description="Message-ID this answers.")


def _check_address(address: str) -> str:
    if any(c in address for c in "\r\n,;") or "@" not in address:
        raise InvalidInputError(f"{address!r} is not one e-mail address")
    return address.strip()


async def send_mail(args: SendMailArguments, context: ToolContext) -> dict[str, Any]:
    mail = await mail_connection(context, args.connection_id)
    settings = mail.access.settings
    message = EmailMessage()
    message["From"] = settings.from_address
    message["To"] = ", ".join(_check_address(a) for a in args.to)
    if args.cc:
        message["Cc"] = ", ".join(_check_address(a) for a in args.cc)
    message["Subject"] = args.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.from_address.rpartition("@")[2] or None)
    if args.in_reply_to:
        message["In-Reply-To"] = message["References"] = args.in_reply_to
    message.set_content(args.body)
    total = len(args.body)
    attached: list[str] = []
    async with file_service(context) as files:
        for file_id in args.attachment_file_ids:
            file, data = await files.read_bytes(file_id)
            total += len(data)
            if total > mail.limits.mail_max_message_bytes:
                raise TooLargeError(
                    f"the message would exceed {mail.limits.mail_max_message_bytes} bytes"
                )
            maintype, _, subtype = file.mime_type.partition("/")
            message.add_attachment(
                data, maintype=maintype or "application", subtype=subtype or "octet-stream",
                filename=file.name,
            )  # fmt: skip
            attached.append(file.name)
    address = await pinned_address(settings.smtp_target, mail.access.timeout_seconds)
    reply = await asyncio.to_thread(send, mail.access, address, message)
    return {
        "sent": True,
        "message_id": message["Message-ID"],
        "to": args.to,
        "cc": args.cc,
        "attachments": attached,
        **reply,
    }


TOOLS: list[Tool] = [
    Tool("send_mail", "Send an e-mail (to, cc, subject, body) with workspace files attached; "
         "reports the mail server's reply.",
         SendMailArguments, send_mail, toolbox="email", is_action=True),
]  # fmt: skip

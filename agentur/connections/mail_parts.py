"""What the agent sees of one e-mail: its body as text and its attachments by index."""

from __future__ import annotations

import html
import re
from email.message import EmailMessage

from agentur.errors import NotFoundError

TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.IGNORECASE | re.DOTALL)


def body_text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = part.get_content()
    if part.get_content_type() == "text/html":
        text = html.unescape(TAG.sub(" ", text))
    return text


def attachments(message: EmailMessage) -> list[EmailMessage]:
    return [part for part in message.iter_attachments() if isinstance(part, EmailMessage)]


def describe_attachments(message: EmailMessage) -> list[dict[str, object]]:
    return [
        {
            "index": index,
            "filename": part.get_filename() or f"attachment-{index}",
            "content_type": part.get_content_type(),
            "size": len(part.get_payload(decode=True) or b""),
        }
        for index, part in enumerate(attachments(message))
    ]


def attachment(message: EmailMessage, index: int) -> tuple[str, str, bytes]:
    """(file name, content type, bytes) of attachment `index`."""
    parts = attachments(message)
    if not 0 <= index < len(parts):
        raise NotFoundError(f"the message has {len(parts)} attachments; there is no index {index}")
    part = parts[index]
    name = part.get_filename() or f"attachment-{index}"
    return name, part.get_content_type(), part.get_payload(decode=True) or b""

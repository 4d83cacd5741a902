"""Replies in the OpenAI media wire formats (`/audio/transcriptions`, `/audio/speech`,
`/images/generations`), and a reader for the multipart form a transcription request sends."""

from __future__ import annotations

import base64
from email.parser import BytesParser
from email.policy import HTTP

from tests.ai.wire_servers.server import ReceivedRequest, Reply


def openai_transcription(text: str, *, input_tokens: int | None = None) -> Reply:
    """`{"text": …}`, with gpt-4o-transcribe's token `usage` when `input_tokens` is given."""
    body: dict = {"text": text}
    if input_tokens is not None:
        body["usage"] = {
            "type": "tokens",
            "input_tokens": input_tokens,
            "output_tokens": len(text) // 4,
            "total_tokens": input_tokens + len(text) // 4,
        }
    return Reply.json(body)


def openai_speech(audio: bytes, content_type: str = "audio/mpeg") -> Reply:
    return Reply(body=audio, headers={"content-type": content_type})


def form_fields(request: ReceivedRequest) -> dict[str, tuple[str | None, bytes]]:
    """The multipart/form-data fields of `request`: name → (file name, content)."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


def openai_image(image: bytes, *, input_tokens: int = 12, output_tokens: int = 4_160) -> Reply:
    """A gpt-image-1 `/images/generations` reply: the image as `b64_json`, token usage."""
    return Reply.json(
        {
            "created": 1_700_000_000,
            "data": [{"b64_json": base64.b64encode(image).decode()}],
            "output_format": "png",
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
                "input_tokens_details": {"text_tokens": input_tokens, "image_tokens": 0},
            },
        }
    )

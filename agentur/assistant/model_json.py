"""One structured-output gateway call whose answer is validated against a pydantic schema.

Shared by the pre-flight and intent classification; a reply that is not valid JSON for the
schema is a failure the caller turns into the model-free path, never a crash.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from agentur.ai.messages import AiRequest, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.service import AiService
from agentur.context import RequestContext

Model = TypeVar("Model", bound=BaseModel)


class StructuredOutputError(Exception):
    pass


def parse_json_reply(text: str, schema: type[Model]) -> Model:
    # Some models wrap JSON in a Markdown fence even when asked for JSON.
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    raw = fenced.group(1) if fenced else text
    try:
        return schema.model_validate(json.loads(raw))
    except (json.JSONDecodeError, ValidationError) as error:
        raise StructuredOutputError(f"reply does not match {schema.__name__}: {error}") from error


async def call_structured(
    ai: AiService,
    context: RequestContext,
    *,
    system: str,
    user: str,
    schema: type[Model],
    operation: OperationType = OperationType.data_analyse,
) -> Model:
    request = AiRequest(
        operation=operation,
        messages=(Message.system(system), Message.user(user)),
        options=CallOptions(temperature=0.0, response_format=schema.model_json_schema()),
    )
    response = await ai.call(request, context)
    return parse_json_reply(response.text, schema)

"""generate_image: through the gateway (image_generate, billed) against an OpenAI images wire
server, saved as a workspace file; a clear error without an image model."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from PIL import Image
from sqlalchemy import select

from agentur.ai.messages import ToolCall
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.service import AiService
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry
from agentur.tools.generate_image import TOOLS
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.workspace.files import FileService
from tests.ai.wire_servers import WireServer, openai_image

GENERATE = TOOLS[0]
PRICED = {"input_price_usd_per_mtok": 5.0, "output_price_usd_per_mtok": 40.0}
IMAGE_MODEL = ModelSpec("openai", "gpt-image-1", frozenset({Capability.image_generation}), **PRICED)
CHAT = ModelSpec("openai", "gpt-4.1-mini", frozenset({Capability.tools}), **PRICED)


@pytest.fixture
def images_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "orange").save(buffer, "PNG")
    return buffer.getvalue()


async def call(context: ToolContext, **arguments: object) -> tuple[bool, object]:
    outcome = await run_tool(
        GENERATE,
        ToolCall("g1", GENERATE.name, dict(arguments)),
        context,
        ToolLimits(),
        lambda _: None,
    )
    return outcome.is_error, outcome.content if outcome.is_error else json.loads(outcome.content)


async def test_the_image_lands_in_the_workspace_and_is_billed(
    runtime: Runtime, tenants, images_server: WireServer
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = AiService(
        [OpenAIProvider(api_key="sk", base_url=images_server.base_url, models=[CHAT, IMAGE_MODEL])],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    picture = png()
    images_server.enqueue(openai_image(picture, input_tokens=11, output_tokens=4_160))
    context = ToolContext(request=alice.context, runtime=runtime)
    failed, result = await call(context, prompt="An orange card", size="1536x1024", save_as="card")
    assert not failed, result
    assert result["name"] == "card.png" and result["mime_type"] == "image/png"  # type: ignore[index]
    assert result["model"] == "openai:gpt-image-1"  # type: ignore[index]
    assert images_server.last.path == "/v1/images/generations"
    assert images_server.last.json["size"] == "1536x1024"
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        _, data = await files.read_bytes(result["file_id"])  # type: ignore[index]
        ledger = (await session.execute(select(AiLedgerEntry))).scalars().all()
    assert data == picture
    assert [(r.operation, r.input_tokens, r.output_tokens) for r in ledger] == [
        ("image_generate", 11, 4_160)
    ]


async def test_without_an_image_model_the_error_says_what_to_configure(
    runtime: Runtime, tenants, images_server: WireServer
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = AiService(
        [OpenAIProvider(api_key="sk", base_url=images_server.base_url, models=[CHAT])],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    failed, error = await call(ToolContext(request=alice.context, runtime=runtime), prompt="x")
    assert failed and "AGENTUR_OPENAI_API_KEY" in str(error) and "image_generation" in str(error)
    assert images_server.received == []

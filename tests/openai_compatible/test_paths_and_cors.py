"""The rest of `/openai/v1`: OpenAI-shaped 404s for paths it does not serve, `/embeddings`
through the gateway, and CORS for the origins `AGENTUR_OPENAI_CORS_ORIGINS` lists."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import openai
import pytest

from agentur.ai.providers.scripted import EMBEDDING_DIMENSIONS, ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.conftest import Member, Tenants
from tests.reread_settings import reread_settings

Client = Callable[[Member], openai.AsyncOpenAI]
EMBEDDING_MODEL = "scripted:scripted-embedding"
ALLOWED = "https://chat.example.com"


async def test_unknown_paths_answer_openais_404(
    runtime: Runtime, tenants: Tenants, openai_client: Client, base_url: str
) -> None:
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    client = openai_client(await tenants.member())

    with pytest.raises(openai.NotFoundError) as legacy:
        await client.completions.create(model="scripted:scripted-model", prompt="Hi")
    async with httpx.AsyncClient() as http:
        wrong_method = await http.get(f"{base_url}/chat/completions")
        nowhere = await http.delete(f"{base_url}/files/file-1")

    assert legacy.value.message.endswith("Invalid URL (POST /openai/v1/completions)")
    assert legacy.value.body["type"] == "invalid_request_error"
    assert wrong_method.status_code == 404
    assert wrong_method.json()["error"]["message"] == (
        "Invalid URL (GET /openai/v1/chat/completions)"
    )
    assert nowhere.status_code == 404 and "error" in nowhere.json()
    assert nowhere.headers["content-type"] == "application/json"


async def test_embeddings_go_through_the_gateway(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    client = openai_client(await tenants.member())

    as_float = await client.embeddings.create(
        model=EMBEDDING_MODEL, input=["hello world", "goodbye"], encoding_format="float"
    )
    as_base64 = await client.embeddings.create(model=EMBEDDING_MODEL, input="hello world")
    with pytest.raises(openai.BadRequestError) as chat_model:
        await client.embeddings.create(model="scripted:scripted-model", input="hi")
    with pytest.raises(openai.NotFoundError):
        await client.embeddings.create(model="nobody:nothing", input="hi")

    assert [item.index for item in as_float.data] == [0, 1]
    assert all(len(item.embedding) == EMBEDDING_DIMENSIONS for item in as_float.data)
    assert as_float.data[0].embedding != as_float.data[1].embedding
    # The SDK asks for base64 by default and decodes it: the same vector comes back.
    assert as_base64.data[0].embedding == pytest.approx(as_float.data[0].embedding, rel=1e-6)
    assert as_float.usage.prompt_tokens > 0 and as_float.model == EMBEDDING_MODEL
    assert chat_model.value.body["param"] == "model"


PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os",
}


async def test_without_listed_origins_a_preflight_is_answered_and_refused(base_url: str) -> None:
    async with httpx.AsyncClient() as http:
        preflight = await http.options(
            f"{base_url}/chat/completions", headers={"Origin": ALLOWED, **PREFLIGHT}
        )

    assert preflight.status_code == 400  # answered (no 405), granted to nobody
    assert "access-control-allow-origin" not in preflight.headers


async def test_cors_grants_the_listed_origins_only(
    runtime: Runtime, tenants: Tenants, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTUR_OPENAI_CORS_ORIGINS", f"{ALLOWED}, https://other.example")
    reread_settings(runtime)
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    member = await tenants.member()

    async with httpx.AsyncClient() as http:
        allowed = await http.options(
            f"{base_url}/chat/completions", headers={"Origin": ALLOWED, **PREFLIGHT}
        )
        refused = await http.options(
            f"{base_url}/chat/completions",
            headers={"Origin": "https://evil.example", **PREFLIGHT},
        )
        listed = await http.get(f"{base_url}/models", headers={"Origin": ALLOWED, **member.headers})
        elsewhere = await http.get(
            base_url.removesuffix("/openai/v1") + "/v1/me",
            headers={"Origin": ALLOWED, **member.headers},
        )

    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert "x-stainless-os" in allowed.headers["access-control-allow-headers"]
    assert "access-control-allow-credentials" not in allowed.headers
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    assert listed.status_code == 200
    assert listed.headers["access-control-allow-origin"] == ALLOWED
    assert "x-agent-run-id" in listed.headers["access-control-expose-headers"].lower()
    assert "access-control-allow-origin" not in elsewhere.headers  # /openai/v1 only

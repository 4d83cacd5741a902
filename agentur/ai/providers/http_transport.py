"""The HTTP side every wire adapter shares: POST JSON, stream SSE, map failures.

Adapters never retry (the gateway does, across models); the httpx client here makes exactly
one attempt. A client can be injected (shared pool, tests); otherwise one is created lazily
on first use, in the event loop that uses it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, ClassVar

import httpx

from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.http_errors import error_from_status, error_from_transport
from agentur.ai.providers.sse import SseEvent, iter_sse


class HttpTransport:
    def __init__(
        self,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        *,
        client: httpx.AsyncClient | None = None,
        timeout_seconds: float = 60.0,
        secrets: tuple[str | None, ...] = (),
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers)
        # One number bounds connect, each read (so also the gap between stream events) and
        # each write; a stalled stream fails instead of hanging.
        self.timeout = httpx.Timeout(timeout_seconds)
        self.secrets = tuple(secret for secret in secrets if secret)
        self._client = client
        self._owns_client = client is None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        return self._client

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None

    def _error(self, response: httpx.Response, body: bytes) -> ProviderError:
        return error_from_status(
            self.provider, response.status_code, response.headers, body, secrets=self.secrets
        )

    def decode(self, body: bytes | str) -> Any:
        try:
            return json.loads(body)
        except ValueError as error:
            raise ProviderError(
                f"{self.provider}: the reply is not JSON", provider=self.provider, retryable=True
            ) from error

    async def post_json(
        self, path: str, payload: Any, *, params: Mapping[str, str] | None = None
    ) -> Any:
        try:
            response = await self.client.post(
                self.base_url + path,
                json=payload,
                headers=self.headers,
                params=params,
                timeout=self.timeout,
            )
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error) from error
        if response.status_code >= 400:
            raise self._error(response, response.content)
        return self.decode(response.content)

    async def post(self, path: str, **content: Any) -> httpx.Response:
        """A POST with any httpx body (`json`, `data`, `files`); the reply as it came."""
        try:
            response = await self.client.post(
                self.base_url + path, headers=self.headers, timeout=self.timeout, **content
            )
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error) from error
        if response.status_code >= 400:
            raise self._error(response, response.content)
        return response

    async def stream_sse(
        self, path: str, payload: Any, *, params: Mapping[str, str] | None = None
    ) -> AsyncIterator[SseEvent]:
        try:
            async with self.client.stream(
                "POST",
                self.base_url + path,
                json=payload,
                headers=self.headers,
                params=params,
                timeout=self.timeout,
            ) as response:
                if response.status_code >= 400:
                    raise self._error(response, await response.aread())
                async for event in iter_sse(response.aiter_lines()):
                    yield event
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error) from error


class HttpProvider:
    """What every wire adapter shares: its name, its models and one `HttpTransport`.

    Vendors differ in the default base URL and in how the API key travels (`auth_headers`);
    the wire format itself lives in the subclass."""

    name: str = "http"
    default_base_url: ClassVar[str | None] = None

    def __init__(
        self,
        *,
        models: Sequence[ModelSpec],
        api_key: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout_seconds: float = 60.0,
        name: str | None = None,
    ) -> None:
        self.name = name or type(self).name
        base = base_url or self.default_base_url
        if not base:
            raise ValueError(f"{self.name}: a base URL is required")
        self.transport = HttpTransport(
            self.name,
            base,
            self.auth_headers(api_key),
            client=client,
            timeout_seconds=timeout_seconds,
            secrets=(api_key,),
        )
        self.model_specs = list(models)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def models(self) -> list[ModelSpec]:
        return list(self.model_specs)

    async def aclose(self) -> None:
        await self.transport.aclose()

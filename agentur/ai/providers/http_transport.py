"""The HTTP side every wire adapter shares: POST JSON, stream SSE, map failures.

Adapters never retry (the gateway does, across models); the httpx client here makes exactly
one attempt. A client can be injected (shared pool, tests); otherwise one is created lazily
on first use, in the event loop that uses it.

Time limits (`Timeouts`) are kept apart because they mean different things: connecting,
waiting for the first byte of a streamed reply (a local server may read a long prompt for
minutes before it sends anything), the gap between two stream lines once the reply flows,
and the whole of a non-streamed call. They are enforced here with asyncio deadlines around
each read — never around a `yield`, so a slow consumer is never cancelled by them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx

from agentur.ai.messages import AiResponse, ToolCall, Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, ProviderError, model_reply
from agentur.ai.providers.http_errors import error_from_status, error_from_transport
from agentur.ai.providers.sse import SseEvent, iter_sse


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds. `setting_prefix` names the settings behind them in timeout errors, so the
    message says what to raise (`AGENTUR_` + `FIRST_TOKEN_TIMEOUT_SECONDS`)."""

    connect: float = 10.0
    first_token: float = 120.0
    idle: float = 60.0
    request: float = 120.0  # a whole non-streamed call
    setting_prefix: str = "AGENTUR_"

    def setting(self, limit: str) -> str:
        name = "stream_idle" if limit == "idle" else limit
        return f"{self.setting_prefix}{name.upper()}_TIMEOUT_SECONDS"


class HttpTransport:
    def __init__(
        self,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        *,
        client: httpx.AsyncClient | None = None,
        timeouts: Timeouts | None = None,
        secrets: tuple[str | None, ...] = (),
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.host = urlsplit(self.base_url).netloc or self.base_url
        self.headers = dict(headers)
        self.timeouts = timeouts or Timeouts()
        # httpx bounds connecting and sending; reads are bounded by the deadlines below.
        self.timeout = httpx.Timeout(
            connect=self.timeouts.connect,
            read=None,
            write=self.timeouts.request,
            pool=self.timeouts.connect,
        )
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

    def fail(
        self, kind: ErrorKind, detail: str, *, model: str | None, retryable: bool = False
    ) -> ProviderError:
        """An error of this provider and host (for failures the adapter finds in a reply)."""
        return ProviderError(
            detail,
            provider=self.provider,
            retryable=retryable,
            kind=kind,
            model=model,
            host=self.host,
        )

    def check_embedding_count(self, vectors: int, texts: int, *, model: str) -> None:
        """An embeddings reply holds one vector a text, in order; any other count is a bad
        reply (retried: a server under load sometimes cuts a batch short)."""
        if vectors != texts:
            raise self.fail(
                ErrorKind.bad_reply,
                f"{vectors} embeddings for {texts} texts",
                model=model,
                retryable=True,
            )

    def _status_error(self, response: httpx.Response, body: bytes, model: str | None):
        return error_from_status(
            self.provider,
            response.status_code,
            response.headers,
            body,
            secrets=self.secrets,
            model=model,
            host=self.host,
        )

    def _timeout(self, kind: ErrorKind, limit: str, model: str | None) -> ProviderError:
        seconds = getattr(self.timeouts, limit)
        what = {
            ErrorKind.first_token_timeout: "no reply within",
            ErrorKind.idle_timeout: "the stream was silent for",
            ErrorKind.reply_timeout: "no complete reply within",
        }[kind]
        return self.fail(
            kind,
            f"{what} {seconds:g} s ({self.timeouts.setting(limit)})",
            model=model,
            # A server still reading the prompt would start it over: only a stream that went
            # silent after it began is tried again.
            retryable=kind is ErrorKind.idle_timeout,
        )

    def decode(self, body: bytes | str, *, model: str | None = None) -> Any:
        try:
            return json.loads(body)
        except ValueError as error:
            raise self.fail(
                ErrorKind.bad_reply, "the reply is not JSON", model=model, retryable=True
            ) from error

    async def post_json(
        self,
        path: str,
        payload: Any,
        *,
        model: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> Any:
        response = await self.post(path, model=model, json=payload, params=params)
        return self.decode(response.content, model=model)

    async def post(self, path: str, *, model: str | None = None, **content: Any) -> httpx.Response:
        """A POST with any httpx body (`json`, `data`, `files`) under the whole-call limit;
        the reply as it came."""
        try:
            async with asyncio.timeout(self.timeouts.request):
                response = await self.client.post(
                    self.base_url + path, headers=self.headers, timeout=self.timeout, **content
                )
        except TimeoutError:
            raise self._timeout(ErrorKind.reply_timeout, "request", model) from None
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error, model=model, host=self.host) from error
        if response.status_code >= 400:
            raise self._status_error(response, response.content, model)
        return response

    async def stream_sse(
        self,
        path: str,
        payload: Any,
        *,
        model: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> AsyncIterator[SseEvent]:
        loop = asyncio.get_running_loop()
        first_byte_by = loop.time() + self.timeouts.first_token
        request = self.client.build_request(
            "POST",
            self.base_url + path,
            json=payload,
            headers=self.headers,
            params=params,
            timeout=self.timeout,
        )
        try:
            async with asyncio.timeout_at(first_byte_by):
                response = await self.client.send(request, stream=True)
        except TimeoutError:
            raise self._timeout(ErrorKind.first_token_timeout, "first_token", model) from None
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error, model=model, host=self.host) from error
        try:
            if response.status_code >= 400:
                async with asyncio.timeout_at(first_byte_by):
                    body = await response.aread()
                raise self._status_error(response, body, model)
            async for event in iter_sse(self._timed_lines(response, first_byte_by, model)):
                yield event
        except TimeoutError:
            raise self._timeout(ErrorKind.first_token_timeout, "first_token", model) from None
        except httpx.HTTPError as error:
            raise error_from_transport(self.provider, error, model=model, host=self.host) from error
        finally:
            await response.aclose()

    async def _timed_lines(
        self, response: httpx.Response, first_by: float, model: str | None
    ) -> AsyncIterator[str]:
        """The reply's lines: the first by the first-token deadline, each later one within
        the idle limit of the one before."""
        loop = asyncio.get_running_loop()
        lines = response.aiter_lines().__aiter__()
        deadline, started = first_by, False
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    line = await lines.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                if started:
                    raise self._timeout(ErrorKind.idle_timeout, "idle", model) from None
                raise
            started = True
            deadline = loop.time() + self.timeouts.idle
            yield line


class HttpProvider:
    """What every wire adapter shares: its name, its models and one `HttpTransport`.

    Vendors differ in the default base URL and in how the API key travels (`auth_headers`);
    the wire format itself lives in the subclass."""

    name: str = "http"
    default_base_url: ClassVar[str | None] = None
    # The vendor's finish reasons in OpenAI's words; one not listed means "stop".
    finish_reasons: ClassVar[Mapping[str, str]] = {}
    # The reply's fields naming the model that answered and the response's id.
    reported_keys: ClassVar[tuple[str, str]] = ("model", "id")

    def __init__(
        self,
        *,
        models: Sequence[ModelSpec],
        api_key: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeouts: Timeouts | None = None,
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
            timeouts=timeouts,
            secrets=(api_key,),
        )
        self.model_specs = list(models)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def models(self) -> list[ModelSpec]:
        return list(self.model_specs)

    async def aclose(self) -> None:
        await self.transport.aclose()

    def reply(
        self,
        model: ModelSpec,
        text: str,
        calls: Sequence[ToolCall],
        usage: Usage,
        reason: str | None,
        started: float,
        reported: Mapping[str, Any],
    ) -> AiResponse:
        """A chat reply: the vendor's finish `reason` mapped (a "stop" with tool calls is
        `tool_calls`: some servers say "stop" even then), `reported` the reply's top level."""
        mapped = self.finish_reasons.get(reason or "", "stop")
        model_key, id_key = self.reported_keys
        return model_reply(
            self.name,
            model,
            started,
            text,
            usage,
            tool_calls=calls,
            finish_reason="tool_calls" if calls and mapped == "stop" else mapped,
            reported_model=reported.get(model_key),
            reported_id=reported.get(id_key),
        )

"""Sends a validated API-catalog call: credential injected here (never seen by a model or put
in an event), no redirects to other hosts, a timeout, a response size cap, and a windowed view
of the response text.

The egress part applies too: a catalog definition is configuration, but whoever can write one
must not be able to aim the server at its own network (cloud metadata at 169.254.169.254,
localhost admin ports, intranet services). Every hop, redirects included, is checked before it
connects and connects to the address that was checked; a deployment that calls internal APIs
on purpose exempts them by host or network (or allows non-global targets altogether)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from agentur.assistant.api_url import ApiCallRejected, PreparedCall, check_path, check_same_origin
from agentur.assistant.definition import ApiCatalog, ApiCredential
from agentur.assistant.settings import ApiLimits
from agentur.egress.fetch import egress_client, read_capped
from agentur.errors import AgenturError


class ApiCallFailed(AgenturError, status_code=502, title="API call failed"):
    pass


@dataclass(frozen=True, slots=True)
class ApiResponse:
    status: int
    content_type: str
    text: str

    def window(self, offset: int, limit: int) -> dict[str, Any]:
        offset = max(0, offset)
        content = self.text[offset : offset + limit]
        end = offset + len(content)
        return {
            "status": self.status,
            "content_type": self.content_type,
            "content": content,
            "offset": offset,
            "limit": limit,
            "total_length": len(self.text),
            "next_offset": end if end < len(self.text) else None,
        }


def _authorize(url: str, headers: dict[str, str], credential: ApiCredential | None) -> str:
    if credential is None:
        return url
    if credential.kind == "bearer":
        headers["Authorization"] = f"Bearer {credential.value}"
    elif credential.kind == "header":
        headers[credential.name] = credential.value
    else:
        url = str(httpx.URL(url).copy_merge_params({credential.name: credential.value}))
    return url


async def send_call(
    catalog: ApiCatalog,
    call: PreparedCall,
    credential: ApiCredential | None,
    limits: ApiLimits,
) -> ApiResponse:
    base_path = urlsplit(catalog.base_url).path.rstrip("/")
    url, method, body = call.url, call.method, call.body
    # Redirects are followed here, not by httpx: each must stay on the catalog's host.
    async with egress_client(limits.egress, follow_redirects=False) as client:
        for _ in range(limits.max_redirects + 1):
            headers = {"Accept": "application/json, text/plain;q=0.9, */*;q=0.1"}
            if body is not None:
                headers["Content-Type"] = "application/json"
            wire_url = _authorize(url, headers, credential)
            try:
                async with client.stream(
                    method, wire_url, headers=headers, content=body
                ) as response:
                    if response.is_redirect:
                        target = urljoin(url, response.headers.get("location", ""))
                        try:
                            check_same_origin(target, catalog.base_url)
                            check_path(urlsplit(target).path, base_path)
                        except ApiCallRejected as error:
                            raise ApiCallFailed(f"redirect not followed: {error.detail}") from error
                        url = target
                        if response.status_code in (301, 302, 303):
                            method, body = "GET", None
                        continue
                    data = await read_capped(response, limits.max_response_bytes)
                    return ApiResponse(
                        response.status_code,
                        response.headers.get("content-type", ""),
                        data.decode(response.encoding or "utf-8", errors="replace"),
                    )
            except httpx.TimeoutException as error:
                raise ApiCallFailed(
                    f"the API did not answer within {limits.timeout_seconds}s"
                ) from error
            except (httpx.HTTPError, httpx.InvalidURL) as error:
                # The error text never includes headers, so the credential cannot leak here.
                raise ApiCallFailed(f"the API request failed: {type(error).__name__}") from error
    raise ApiCallFailed(f"more than {limits.max_redirects} redirects")

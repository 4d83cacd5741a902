"""One assistant's API catalog as the runtime uses it: describe it (`inspect_api`) and call a
registered endpoint (`call_api`). The credential is opened only at send time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentur.assistant.api_url import find_endpoint, prepare_call
from agentur.assistant.call_api import ApiLimits, ApiResponse, send_call
from agentur.assistant.definition import ApiCatalog, ApiCredential


@dataclass
class AssistantApi:
    catalog: ApiCatalog
    limits: ApiLimits
    # Opens the sealed credential on demand, so the plaintext lives only during a send.
    open_credential: Callable[[], ApiCredential | None] = lambda: None
    has_credential: bool = False

    def describe(self, endpoint: str | None = None) -> dict[str, Any]:
        endpoints = [find_endpoint(self.catalog, endpoint)] if endpoint else self.catalog.endpoints
        return {
            "base_url": self.catalog.base_url,
            "authenticated": self.has_credential,
            "endpoints": [
                item.model_dump(
                    include={
                        "name",
                        "method",
                        "path",
                        "description",
                        "path_params",
                        "query_params",
                        "body_schema",
                    }
                )
                for item in endpoints
            ],
        }

    async def call(
        self,
        endpoint: str,
        path_params: dict[str, Any] | None = None,
        query: dict[str, Any] | None = None,
        body: Any = None,
    ) -> ApiResponse:
        prepared = prepare_call(self.catalog, endpoint, path_params, query, body)
        return await send_call(self.catalog, prepared, self.open_credential(), self.limits)

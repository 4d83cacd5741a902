"""CORS for `/openai/v1` only: browser apps on the origins in `AGENTUR_OPENAI_CORS_ORIGINS`
may call it (Starlette's CORS middleware answers the preflight, also with a refusal for any
other origin). The key travels as a bearer header, never a cookie, so no credentials mode is
granted and any request header may be sent."""

from __future__ import annotations

from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from agentur.api.openai_compatible.settings import OpenAICompatibleSettings

PREFIX = "/openai/v1"
EXPOSED_HEADERS = ["X-Agent-Run-Id", "X-Agentur-Workflow-Id"]
PREFLIGHT_MAX_AGE = 600


def openai_settings(state: Any) -> OpenAICompatibleSettings:
    """The settings of the app's runtime."""
    settings: OpenAICompatibleSettings = state.runtime.all_settings.openai
    return settings


class OpenAICorsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._by_origins: dict[tuple[str, ...], CORSMiddleware] = {}

    def _cors(self, origins: tuple[str, ...]) -> CORSMiddleware:
        if origins not in self._by_origins:
            self._by_origins[origins] = CORSMiddleware(
                self.app,
                allow_origins=list(origins),
                allow_methods=["GET", "POST", "OPTIONS"],
                allow_headers=["*"],
                expose_headers=EXPOSED_HEADERS,
                max_age=PREFLIGHT_MAX_AGE,
            )
        return self._by_origins[origins]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            await self.app(scope, receive, send)
            return
        origins = openai_settings(scope["app"].state).cors_origins
        await self._cors(origins)(scope, receive, send)

"""The FastAPI application: lifespan builds the runtime, routes stay thin."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from agentur import __version__
from agentur.agent.recover_dead_runs import start_run_recovery
from agentur.api.backpressure.body_limits import BodyLimitMiddleware, body_limit
from agentur.api.dependencies import get_request_context
from agentur.api.mcp.mount import mount_mcp
from agentur.api.openai_compatible.cors import OpenAICorsMiddleware
from agentur.api.openapi import install_openapi
from agentur.api.problems import install_problem_handlers
from agentur.api.routes import (
    agent_runs,
    ai_settings,
    api_docs,
    assistant_conversations,
    assistants,
    billing,
    connections,
    features,
    files,
    folders,
    health,
    knowledge,
    me,
    meetings,
    metrics,
    models,
    openai_compatible,
    sessions,
    web_app,
    widget,
    workflows,
)
from agentur.config import Settings
from agentur.knowledge.background import start_background_indexing
from agentur.knowledge.store import knowledge_store
from agentur.observability.http_middleware import ObservabilityMiddleware
from agentur.observability.tracing import configure_tracing
from agentur.runtime import Runtime
from agentur.settings import AllSettings
from agentur.tools.registry import ToolRegistry


def create_app(
    settings: Settings | AllSettings | None = None,
    *,
    runtime: Runtime | None = None,
    migrate: bool = True,
) -> FastAPI:
    """An app over `runtime` (tests pass one) or over a runtime built from `settings` (all of
    them, or the core ones; the rest, or all, read from the environment when it starts).

    `migrate=False` when the caller has just migrated (`agentur serve`), so the schema check
    does not run, and log, twice per start."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime is None
        app.state.runtime = runtime or Runtime.from_settings(settings)
        if owned and migrate:
            await app.state.runtime.migrate()
        stop_indexing = start_background_indexing(app.state.runtime) if owned else None
        # Runs a worker that died left `running` end as `failed` (at start, then periodically).
        stop_recovery = start_dead_run_recovery(app.state.runtime) if owned else None
        # The tool modules import heavy libraries (charts, connections: 1.5 s cold); imported
        # here in a thread, the first agent run does not stall the event loop importing them.
        warm_tools = (
            asyncio.create_task(asyncio.to_thread(ToolRegistry.discover)) if owned else None
        )
        try:
            async with serve_mcp():
                yield
        finally:
            if hasattr(app.state, "meetings"):  # live meeting sessions of this worker
                await app.state.meetings.close()
            if warm_tools is not None:
                await warm_tools
            if stop_recovery is not None:
                await stop_recovery()
            if stop_indexing is not None:
                await stop_indexing()
            if owned:
                await app.state.runtime.close()

    configure_tracing()
    # FastAPI's own telemetry opens each request's SERVER span once a tracer provider is
    # configured; its log records (validation failures with input values) stay off: request
    # bodies carry prompts and personal data. FastAPI's own /docs and /redoc load their scripts
    # from a CDN; api_docs serves Swagger UI from the package instead (no ReDoc).
    app = FastAPI(
        title="agentur",
        version=__version__,
        lifespan=lifespan,
        telemetry={"logs": False},
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(OpenAICorsMiddleware)  # around the body limit: a 413 carries CORS too
    app.add_middleware(ObservabilityMiddleware)  # outermost: it sees every answer, 413s too
    if runtime is not None:
        app.state.runtime = runtime
    install_problem_handlers(app)
    install_openapi(
        app,
        lambda: setting_limits(app.state.runtime),
        get_request_context,
        lambda path: body_limit(path, app.state.runtime.settings).detail,
    )
    app.include_router(health.router)
    app.include_router(api_docs.router)  # Swagger UI at /docs
    app.include_router(metrics.router)
    app.include_router(widget.router)  # the visitor widget's script (/widget.js)
    for module in (me, sessions, files, folders, workflows, connections):
        app.include_router(module.router, prefix="/v1")
    app.include_router(agent_runs.router, prefix="/v1")  # agent
    for module in (models, billing, ai_settings):  # AI gateway
        app.include_router(module.router, prefix="/v1")
    app.include_router(ai_settings.operator_router, prefix="/v1")
    # Conversations first: `/assistants/{id}/conversations` must win over `/{id}/{part}`.
    for module in (assistant_conversations, assistants):  # assistant runtime
        app.include_router(module.router, prefix="/v1")
    app.include_router(knowledge.router, prefix="/v1")  # knowledge store
    app.include_router(features.router, prefix="/v1")  # feature data
    app.include_router(meetings.router, prefix="/v1")  # meeting assistant
    app.include_router(openai_compatible.router)  # OpenAI's wire format, at /openai/v1
    serve_mcp = mount_mcp(app)  # MCP server
    app.include_router(web_app.router)  # workspace web app at /
    return app


def start_dead_run_recovery(runtime: Runtime) -> Callable[[], Awaitable[None]]:
    agent_settings = runtime.all_settings.agent
    heartbeat = runtime.run_heartbeat(agent_settings)
    return start_run_recovery(runtime.database, agent_settings, heartbeat)


def setting_limits(runtime: Runtime) -> dict[str, int]:
    """The configured limits the OpenAPI document states (see `agentur.api.openapi`)."""
    settings = runtime.settings
    return {
        "max_name_length": settings.max_name_length,
        "max_read_window": settings.max_read_window,
        "knowledge_max_search_limit": knowledge_store(runtime).settings.knowledge_max_search_limit,
        "assistant_max_message_chars": runtime.all_settings.assistant.assistant_max_message_chars,
    }

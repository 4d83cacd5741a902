"""`agentur ask "prompt"` — one agent turn against the local storage, streamed to the terminal."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from agentur.context import RequestContext, Role, resolve_timezone
from agentur.errors import AgenturError, NotFoundError

if TYPE_CHECKING:  # imported where used: `agentur --help` stays fast
    from agentur.runtime import Runtime
    from agentur.tool_loop.events import AgentEvent

ARGUMENT_PREVIEW_CHARS = 120


async def _local_context(runtime: Runtime, email: str | None, timezone: str) -> RequestContext:
    from sqlalchemy import select

    from agentur.accounts.bootstrap import LOCAL_ADMIN_EMAIL
    from agentur.storage.models import Membership, User

    async with runtime.database.session() as session:
        query = select(User, Membership).join(Membership, Membership.user_id == User.id)
        query = query.where(User.email == (email or LOCAL_ADMIN_EMAIL))
        row = (await session.execute(query.order_by(Membership.created_at).limit(1))).first()
    if row is None:
        raise NotFoundError(
            f"no user {email or LOCAL_ADMIN_EMAIL} with a mandate; run `agentur serve` once "
            "or pass --user"
        )
    user, membership = row
    return RequestContext(
        user_id=user.id,
        mandate_id=membership.mandate_id,
        role=Role(membership.role),
        timezone=resolve_timezone(timezone),
        is_platform_admin=user.is_platform_admin,
    )


def _print_event(event: AgentEvent) -> None:
    from agentur.tool_loop.events import EventType

    data = event.data
    if event.type is EventType.chunk:
        typer.echo(data["text"], nl=False)
    elif event.type is EventType.tool_call:
        arguments = json.dumps(data["arguments"], ensure_ascii=False)
        if len(arguments) > ARGUMENT_PREVIEW_CHARS:
            arguments = arguments[:ARGUMENT_PREVIEW_CHARS] + "…"
        typer.echo(f"\n[tool] {data['name']} {arguments}")
    elif event.type is EventType.tool_result:
        outcome = "error" if data["is_error"] else "ok"
        typer.echo(f"[tool] {data['name']} → {outcome} ({len(data['content'])} chars)")
    elif event.type is EventType.error:
        typer.echo(f"\n[error] {data['message']}", err=True)
    elif event.type is EventType.final and data["status"] != "completed":
        typer.echo(f"\n{data['text']}")
    elif event.type is EventType.agent_summary:
        usage = data["usage"]
        typer.echo(
            f"\n--\n{data['status']} · {data['rounds']} round(s) · "
            f"{usage['input_tokens']}+{usage['output_tokens']} tokens · "
            f"CHF {data['cost_chf']:.4f} · {data['duration_ms'] / 1000:.1f} s · "
            f"{', '.join(data['models']) or 'no model'}"
        )


def register(app: typer.Typer) -> None:
    @app.command()
    def ask(
        prompt: str,
        user: Annotated[
            str | None, typer.Option(help="E-mail of the user to act as (default: local admin).")
        ] = None,
        workflow: Annotated[str | None, typer.Option(help="Continue this workflow.")] = None,
        max_rounds: Annotated[int, typer.Option(min=1, max=100)] = 25,
        max_cost_chf: Annotated[float | None, typer.Option(min=0.0001)] = None,
        timezone: Annotated[str, typer.Option(help="IANA time zone for the prompt.")] = "UTC",
    ) -> None:
        """Run one agent turn and print its text, tool activity and a summary."""
        from agentur.agent.config import AgentConfig
        from agentur.agent.run_agent import run_agent
        from agentur.ai.model_spec import Capability
        from agentur.cli.main import fail, run_with_runtime

        async def work(runtime: Runtime) -> str:
            chat_models = [m for m in runtime.ai.models() if m.supports(Capability.tools)]
            if not chat_models:
                raise AgenturError(
                    "no model is configured; set e.g. AGENTUR_OPENAI_API_KEY or "
                    "AGENTUR_OPENAI_COMPATIBLE_BASE_URL"
                )
            context = await _local_context(runtime, user, timezone)
            deps = runtime.agent_dependencies()
            config = AgentConfig(max_rounds=max_rounds, max_cost_chf=max_cost_chf)
            result = await run_agent(
                prompt, config, context, deps, workflow_id=workflow, emit=_print_event
            )
            return result.status.value

        status = run_with_runtime(work)
        if status not in ("completed",):
            fail(f"the run ended with status {status}")

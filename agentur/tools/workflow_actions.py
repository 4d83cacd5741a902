"""Actions on the caller's workflows, declared as typed functions; their tools are
generated (`workflow_rename`, `workflow_archive`, `workflow_post_message`). A workflow of
anyone else is "not found"."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from agentur.errors import InvalidInputError
from agentur.tools.action_catalog import Action, action_tool
from agentur.tools.tool import ToolContext
from agentur.tools.workspace_access import workflow_service

WorkflowId = Annotated[
    str | None, Field(description="The workflow; the current one when not given.")
]


def _target(context: ToolContext, workflow_id: str | None) -> str:
    target = workflow_id or context.workflow_id
    if not target:
        raise InvalidInputError("no workflow_id given and the run has no workflow")
    return target


async def rename(
    context: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=500)],
    workflow_id: WorkflowId = None,
) -> dict[str, Any]:
    """Give a workflow a new title."""
    async with workflow_service(context) as workflows:
        workflow = await workflows.rename(_target(context, workflow_id), title)
        await workflows.session.commit()
        return {"workflow_id": workflow.id, "title": workflow.title}


async def archive(context: ToolContext, *, workflow_id: WorkflowId = None) -> dict[str, Any]:
    """Archive a workflow: it leaves the workflow history list; its messages are kept."""
    async with workflow_service(context) as workflows:
        workflow = await workflows.archive(_target(context, workflow_id))
        await workflows.session.commit()
        return {"workflow_id": workflow.id, "archived_at": workflow.archived_at.isoformat()}


async def post_message(
    context: ToolContext,
    *,
    text: Annotated[str, Field(min_length=1, max_length=20_000)],
    workflow_id: WorkflowId = None,
) -> dict[str, Any]:
    """Post a message into a workflow's conversation (as the assistant)."""
    async with workflow_service(context) as workflows:
        message = await workflows.append(
            _target(context, workflow_id), "assistant", text, {"posted_by": "workflow_action"}
        )
        await workflows.session.commit()
        return {"workflow_id": message.workflow_id, "sequence": message.sequence}


ACTIONS = [
    Action("workflow", function, toolbox="workflow") for function in (rename, archive, post_message)
]
TOOLS = [action_tool(action) for action in ACTIONS]

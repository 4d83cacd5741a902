"""Create workflows, append and read their messages — always inside the caller's mandate."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext, utc_now
from agentur.errors import NotFoundError
from agentur.names import clean_name
from agentur.storage.models import Workflow, WorkflowMessage
from agentur.storage.paging import page


class WorkflowService:
    def __init__(self, session: AsyncSession, context: RequestContext) -> None:
        self.session = session
        self.context = context

    async def create(self, title: str = "") -> Workflow:
        workflow = Workflow(
            mandate_id=self.context.mandate_id,
            owner_id=self.context.user_id,
            feature_instance_id=self.context.feature_instance_id,
            title=clean_name(title, "title", required=False),
        )
        self.session.add(workflow)
        await self.session.flush()
        return workflow

    async def get(self, workflow_id: str) -> Workflow:
        workflow = (
            await self.session.execute(
                select(Workflow).where(
                    Workflow.id == workflow_id,
                    Workflow.mandate_id == self.context.mandate_id,
                    Workflow.owner_id == self.context.user_id,
                )
            )
        ).scalar_one_or_none()
        if workflow is None:
            raise NotFoundError(f"workflow {workflow_id} not found")
        return workflow

    async def list(self, *, limit: int = 50, offset: int = 0) -> list[Workflow]:
        query = (
            select(Workflow)
            .where(
                Workflow.mandate_id == self.context.mandate_id,
                Workflow.owner_id == self.context.user_id,
                Workflow.archived_at.is_(None),
            )
            .order_by(Workflow.updated_at.desc(), Workflow.id)
        )
        rows = await self.session.execute(page(query, limit, offset))
        return list(rows.scalars())

    async def rename(self, workflow_id: str, title: str) -> Workflow:
        workflow = await self.get(workflow_id)
        workflow.title = title[:500]
        await self.session.flush()
        return workflow

    async def archive(self, workflow_id: str) -> Workflow:
        workflow = await self.get(workflow_id)
        if workflow.archived_at is None:
            workflow.archived_at = utc_now()
            await self.session.flush()
        return workflow

    async def append(
        self, workflow_id: str, role: str, content: str, data: dict[str, Any] | None = None
    ) -> WorkflowMessage:
        workflow = await self.get(workflow_id)
        # Write first: the UPDATE takes the workflow's row lock (SQLite: the write lock), so
        # concurrent appends — from any worker — number their messages one after another
        # instead of both reading the same last sequence.
        await self.session.execute(
            update(Workflow).where(Workflow.id == workflow.id).values(updated_at=utc_now())
        )
        last = await self.session.scalar(
            select(func.max(WorkflowMessage.sequence)).where(
                WorkflowMessage.workflow_id == workflow.id
            )
        )
        message = WorkflowMessage(
            workflow_id=workflow.id,
            sequence=(last or 0) + 1,
            role=role,
            content=content,
            data=data,
        )
        self.session.add(message)
        await self.session.flush()
        return message

    async def messages(
        self, workflow_id: str, *, offset: int = 0, limit: int = 100
    ) -> tuple[list[WorkflowMessage], int]:
        workflow = await self.get(workflow_id)
        total = await self.session.scalar(
            select(func.count()).where(WorkflowMessage.workflow_id == workflow.id)
        )
        query = (
            select(WorkflowMessage)
            .where(WorkflowMessage.workflow_id == workflow.id)
            .order_by(WorkflowMessage.sequence)
        )
        rows = await self.session.execute(page(query, limit, offset))
        return list(rows.scalars()), int(total or 0)

"""Meeting sessions and directives in the database, always inside the caller's mandate.

Each function opens and closes its own short transaction: no caller holds a connection while
it waits for a model or for another connection."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Select, select, update

from agentur.context import RequestContext, Role, utc_now
from agentur.errors import NotFoundError
from agentur.meetings.records import (
    Directive,
    DirectiveKind,
    MeetingOptions,
    MeetingRecord,
)
from agentur.storage.database import Database
from agentur.storage.models import Membership, new_id
from agentur.storage.models.meetings import MeetingDirective, MeetingSession
from agentur.workflows.service import WorkflowService


def workflow_title(session_id: str) -> str:
    """The meeting's workflow: one per session, so its memory stays apart from others."""
    return f"meeting:{session_id}"


def _record(row: MeetingSession, directives: list[Directive]) -> MeetingRecord:
    owner = row.settings.get("owner") or {}
    context = RequestContext(
        user_id=row.owner_id,
        mandate_id=row.mandate_id,
        role=Role(owner.get("role", Role.member.value)),
        timezone=owner.get("timezone", "UTC"),
        language=owner.get("language", "en"),
    )
    return MeetingRecord(
        id=row.id,
        mandate_id=row.mandate_id,
        owner_id=row.owner_id,
        workflow_id=row.workflow_id,
        title=row.title,
        options=MeetingOptions.from_json(row.settings.get("options") or {}),
        budget_chf=row.budget_chf,
        spent_chf=row.spent_chf,
        status=row.status,
        created_at=row.created_at,
        owner_context=context,
        summary=row.summary,
        ended_at=row.ended_at,
        directives=directives,
    )


def _directive(row: MeetingDirective) -> Directive:
    return Directive(
        row.id, DirectiveKind(row.kind), row.text, row.author_id, row.created_at, row.withdrawn_at
    )


def _session_is(session_id: str, mandate_id: str) -> tuple[ColumnElement[bool], ...]:
    return (MeetingSession.id == session_id, MeetingSession.mandate_id == mandate_id)


def _directives_of(session_id: str, mandate_id: str) -> Select[tuple[MeetingDirective]]:
    return (
        select(MeetingDirective)
        .where(
            MeetingDirective.session_id == session_id,
            MeetingDirective.mandate_id == mandate_id,
        )
        .order_by(MeetingDirective.created_at, MeetingDirective.id)
    )


class MeetingStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(
        self, context: RequestContext, title: str, options: MeetingOptions, budget_chf: float
    ) -> MeetingRecord:
        session_id = new_id()
        async with self.database.transaction() as session:
            if options.operator_ids:
                members = set(
                    await session.scalars(
                        select(Membership.user_id).where(
                            Membership.mandate_id == context.mandate_id,
                            Membership.user_id.in_(options.operator_ids),
                        )
                    )
                )
                if unknown := sorted(set(options.operator_ids) - members):
                    # Like any id that names nothing the caller may see: not found.
                    raise NotFoundError(
                        f"operator_ids: {', '.join(unknown)} are no members of your mandate"
                    )
            workflow = await WorkflowService(session, context).create(workflow_title(session_id))
            owner = {
                "role": context.role.value,
                "timezone": context.timezone,
                "language": context.language,
            }
            row = MeetingSession(
                id=session_id,
                mandate_id=context.mandate_id,
                owner_id=context.user_id,
                workflow_id=workflow.id,
                title=title,
                settings={"options": options.to_json(), "owner": owner},
                budget_chf=budget_chf,
                spent_chf=0.0,
                status="live",
                summary="",
            )
            session.add(row)
            await session.flush()
            return _record(row, [])

    async def get(self, session_id: str, context: RequestContext) -> MeetingRecord:
        """The session with its directives; another mandate's session is not there."""
        async with self.database.session() as session:
            row = await session.scalar(
                select(MeetingSession).where(*_session_is(session_id, context.mandate_id))
            )
            if row is None:
                raise NotFoundError(f"meeting session {session_id} not found")
            directives = await session.scalars(_directives_of(row.id, context.mandate_id))
            return _record(row, [_directive(d) for d in directives])

    async def add_directive(
        self, record: MeetingRecord, author: RequestContext, kind: DirectiveKind, text: str
    ) -> Directive:
        async with self.database.transaction() as session:
            row = MeetingDirective(
                session_id=record.id,
                mandate_id=record.mandate_id,
                author_id=author.user_id,
                kind=kind.value,
                text=text,
                # A one-shot directive is used up as it is sent.
                withdrawn_at=utc_now() if kind is DirectiveKind.one_shot else None,
            )
            session.add(row)
            await session.flush()
            return _directive(row)

    async def withdraw(self, record: MeetingRecord, directive_id: str) -> Directive:
        async with self.database.transaction() as session:
            row = await session.scalar(
                select(MeetingDirective).where(
                    MeetingDirective.id == directive_id,
                    MeetingDirective.session_id == record.id,
                    MeetingDirective.mandate_id == record.mandate_id,
                )
            )
            if row is None:
                raise NotFoundError(f"directive {directive_id} not found in this meeting")
            if row.withdrawn_at is None:
                row.withdrawn_at = utc_now()
                await session.flush()
            return _directive(row)

    async def persistent_directives(self, record: MeetingRecord) -> list[Directive]:
        async with self.database.session() as session:
            rows = await session.scalars(
                _directives_of(record.id, record.mandate_id).where(
                    MeetingDirective.kind == DirectiveKind.persistent.value,
                    MeetingDirective.withdrawn_at.is_(None),
                )
            )
            return [_directive(row) for row in rows]

    async def add_spent(self, record: MeetingRecord, chf: float) -> float:
        """Adds `chf` to what the session spent; returns the new total."""
        if chf <= 0:
            return record.spent_chf
        async with self.database.transaction() as session:
            await session.execute(
                update(MeetingSession)
                .where(*_session_is(record.id, record.mandate_id))
                .values(spent_chf=MeetingSession.spent_chf + chf)
            )
            spent = await session.scalar(
                select(MeetingSession.spent_chf).where(MeetingSession.id == record.id)
            )
        record.spent_chf = float(spent or 0.0)
        return record.spent_chf

    async def end(self, record: MeetingRecord, summary: str) -> None:
        async with self.database.transaction() as session:
            await session.execute(
                update(MeetingSession)
                .where(*_session_is(record.id, record.mandate_id))
                .values(status="ended", summary=summary, ended_at=utc_now())
            )
        record.status, record.summary = "ended", summary

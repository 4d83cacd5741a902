"""Feature instances of the caller's mandate and their declared tables.

An instance id from anywhere else — another mandate, a model's argument — is answered with
"not found", exactly like one that does not exist, so ids of other tenants reveal nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.errors import InvalidInputError, NotFoundError
from agentur.features.schema import TableSchema
from agentur.features.trustee import feature as trustee
from agentur.names import clean_name
from agentur.storage.models import FeatureInstance


@dataclass(frozen=True, slots=True)
class Feature:
    code: str
    tables: dict[str, TableSchema]
    domain_hints: str = ""


FEATURES: dict[str, Feature] = {
    trustee.FEATURE_CODE: Feature(trustee.FEATURE_CODE, trustee.TABLES, trustee.DOMAIN_HINTS),
}


@dataclass(frozen=True, slots=True)
class InstanceRef:
    """An instance checked to belong to the caller's mandate, with its feature."""

    id: str
    mandate_id: str
    name: str
    feature: Feature
    agent_hints: str = ""

    def table(self, name: str) -> TableSchema:
        schema = self.feature.tables.get(name)
        if schema is None:
            raise InvalidInputError(
                f"feature {self.feature.code!r} has no table {name!r}; "
                f"tables: {', '.join(self.feature.tables)}"
            )
        return schema


async def get_instance(
    session: AsyncSession, context: RequestContext, instance_id: str
) -> InstanceRef:
    row = (
        await session.execute(
            select(FeatureInstance).where(
                FeatureInstance.id == instance_id,
                FeatureInstance.mandate_id == context.mandate_id,
            )
        )
    ).scalar_one_or_none()
    if row is None:
        raise NotFoundError(f"feature instance {instance_id} not found")
    feature = FEATURES.get(row.feature_code)
    if feature is None:
        raise InvalidInputError(f"feature instance {instance_id} has no data tables")
    return InstanceRef(row.id, row.mandate_id, row.name, feature, row.agent_hints or "")


async def list_instances(session: AsyncSession, context: RequestContext) -> list[FeatureInstance]:
    query = (
        select(FeatureInstance)
        .where(
            FeatureInstance.mandate_id == context.mandate_id,
            FeatureInstance.feature_code.in_(FEATURES),
        )
        .order_by(FeatureInstance.created_at, FeatureInstance.id)
    )
    return list((await session.execute(query)).scalars())


async def create_instance(
    session: AsyncSession,
    context: RequestContext,
    feature_code: str,
    name: str,
    agent_hints: str | None = None,
) -> FeatureInstance:
    if feature_code not in FEATURES:
        raise InvalidInputError(
            f"unknown feature {feature_code!r}; known: {', '.join(sorted(FEATURES))}"
        )
    instance = FeatureInstance(
        mandate_id=context.mandate_id,
        feature_code=feature_code,
        name=clean_name(name, "the instance's name", required=False),
        agent_hints=agent_hints,
    )
    session.add(instance)
    await session.flush()
    return instance

"""The service the feature-data tools and the API use: instance check, query, result cache."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.features.import_rows import import_rows
from agentur.features.instances import InstanceRef, get_instance
from agentur.features.query_tables import (
    AggregateArguments,
    BrowseArguments,
    QueryArguments,
    aggregate_table,
    browse_table,
    query_table,
)
from agentur.features.result_cache import ResultCache
from agentur.storage.database import Database

Changed = TypeVar("Changed")
Query = Callable[[AsyncSession, InstanceRef, Any], Awaitable[dict[str, Any]]]
QUERIES: dict[str, Query] = {
    "browse_table": browse_table,
    "query_table": query_table,
    "aggregate_table": aggregate_table,
}


class FeatureData:
    def __init__(self, database: Database, cache: ResultCache) -> None:
        self.database = database
        self.cache = cache

    async def run_query(
        self, context: RequestContext, instance_id: str, tool: str, args: BaseModel
    ) -> dict[str, Any]:
        key = self.cache.key(context.mandate_id, instance_id, tool, args.model_dump(mode="json"))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        async with self.database.session() as session:
            instance = await get_instance(session, context, instance_id)
            result = await QUERIES[tool](session, instance, args)
        self.cache.put(key, result)
        return result

    async def browse(self, context: RequestContext, instance_id: str, args: BrowseArguments):
        return await self.run_query(context, instance_id, "browse_table", args)

    async def query(self, context: RequestContext, instance_id: str, args: QueryArguments):
        return await self.run_query(context, instance_id, "query_table", args)

    async def aggregate(self, context: RequestContext, instance_id: str, args: AggregateArguments):
        return await self.run_query(context, instance_id, "aggregate_table", args)

    async def schema(self, context: RequestContext, instance_id: str) -> InstanceRef:
        async with self.database.session() as session:
            return await get_instance(session, context, instance_id)

    async def change(
        self,
        context: RequestContext,
        instance_id: str,
        change: Callable[[AsyncSession, InstanceRef], Awaitable[Changed]],
    ) -> Changed:
        """One change to an instance's tables, committed; cached results of it end."""
        async with self.database.transaction() as session:
            instance = await get_instance(session, context, instance_id)
            changed = await change(session, instance)
        self.cache.invalidate(context.mandate_id, instance_id)
        return changed

    async def import_file(
        self,
        context: RequestContext,
        instance_id: str,
        table: str,
        data: bytes,
        file_name: str,
        *,
        max_rows: int,
    ) -> int:
        async with self.database.transaction() as session:
            instance = await get_instance(session, context, instance_id)
            count = await import_rows(session, instance, table, data, file_name, max_rows=max_rows)
        self.cache.invalidate(context.mandate_id, instance_id)
        return count

"""Feature data: `query_feature_instance` asks a sub-agent a question over one of the
mandate's feature instances; the sub-agent's own tools browse, query and aggregate its tables.

The instance the sub-agent's tools read is fixed by `query_feature_instance` (after checking it
belongs to the caller's mandate) and handed down in the sub-agent's `ToolDeps`, so the sub-agent's
model can neither name nor switch it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.errors import AgenturError
from agentur.features.query_tables import AggregateArguments, BrowseArguments, QueryArguments
from agentur.features.sub_agent_prompt import sub_agent_prompt
from agentur.tools.sub_agent_port import SubAgentRequest
from agentur.tools.tool import Tool, ToolContext

# A sub-agent runs several model rounds; its rounds and budget bound it, this only catches a hang.
SUB_AGENT_TIMEOUT_SECONDS = 900.0


def _instance_id(context: ToolContext) -> str:
    instance_id = context.deps.feature_instance_id
    if not instance_id:
        raise AgenturError("this tool is only offered to the feature-data sub-agent")
    return instance_id


async def _browse(args: BrowseArguments, context: ToolContext) -> dict[str, Any]:
    service = context.runtime.feature_data
    return await service.browse(context.request, _instance_id(context), args)


async def _query(args: QueryArguments, context: ToolContext) -> dict[str, Any]:
    service = context.runtime.feature_data
    return await service.query(context.request, _instance_id(context), args)


async def _aggregate(args: AggregateArguments, context: ToolContext) -> dict[str, Any]:
    service = context.runtime.feature_data
    return await service.aggregate(context.request, _instance_id(context), args)


FEATURE_DATA_TOOLS: tuple[Tool, ...] = (
    Tool(
        "browse_table",
        "A table's columns (type, description, kind: balance/total/movement), row count and "
        "sample rows.",
        BrowseArguments,
        _browse,
        read_only=True,
        toolbox="trustee",
    ),
    Tool(
        "query_table",
        "Rows of a table: chosen columns, AND-ed filters, order, a window (offset/limit) and "
        "the total count of matching rows.",
        QueryArguments,
        _query,
        read_only=True,
        toolbox="trustee",
    ),
    Tool(
        "aggregate_table",
        "SUM/COUNT/AVG/MIN/MAX of a column, grouped by columns, over filtered rows.",
        AggregateArguments,
        _aggregate,
        read_only=True,
        toolbox="trustee",
    ),
)


class QueryFeatureInstanceArguments(BaseModel):
    instance_id: str = Field(description="Feature instance to ask (one of your mandate's).")
    question: str = Field(min_length=1, max_length=4000, description="The question to answer.")


async def _query_feature_instance(
    args: QueryFeatureInstanceArguments, context: ToolContext
) -> dict[str, Any]:
    instance = await context.runtime.feature_data.schema(context.request, args.instance_id)
    runner = context.deps.sub_agent
    if runner is None:
        raise AgenturError("sub-agents cannot run here")
    answer = await runner(
        SubAgentRequest(
            label="query_feature_instance",
            question=args.question,
            system_prompt=sub_agent_prompt(instance),
            tools=FEATURE_DATA_TOOLS,
            feature_instance_id=instance.id,
        )
    )
    return {
        "instance_id": instance.id,
        "status": answer.status,
        "answer": answer.text,
        "rounds": answer.rounds,
        "cost_chf": answer.cost_chf,
    }


TOOLS = [
    Tool(
        "query_feature_instance",
        "Answer a question over a feature instance's business tables (bookkeeping: accounts, "
        "journal entries, customers, invoices) through a data sub-agent; returns its answer "
        "with the filters it used.",
        QueryFeatureInstanceArguments,
        _query_feature_instance,
        read_only=True,
        toolbox="trustee",
        timeout_seconds=SUB_AGENT_TIMEOUT_SECONDS,
    )
]

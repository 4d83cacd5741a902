"""/v1/features — feature instances of the caller's mandate, their table schemas, CSV/XLSX
imports and read queries. An instance of another mandate is 404, like a missing one."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Path, UploadFile, status
from pydantic import BaseModel, Field

from agentur.api.dependencies import ContextDep, RuntimeDep, SessionDep
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.errors import ForbiddenError, InvalidInputError, TooLargeError
from agentur.features.instances import FEATURES, create_instance, list_instances
from agentur.features.query_tables import KNOWN_TABLES, AggregateArguments, QueryArguments
from agentur.names import OptionalName

router = APIRouter(prefix="/features", tags=["features"], responses=AUTHENTICATED)

InstanceId = Annotated[str, Path(max_length=36, description="A feature instance of your mandate.")]
TableName = Annotated[
    Literal[KNOWN_TABLES],  # type: ignore[valid-type]
    Path(description="A table of the instance's feature."),
]


FeatureCode = Literal[tuple(sorted(FEATURES))]  # type: ignore[valid-type]


class InstanceCreate(BaseModel):
    feature_code: FeatureCode = Field(description="The feature.")
    name: OptionalName = ""
    agent_hints: str | None = Field(
        default=None, max_length=4000, description="Domain hints for the feature-data sub-agent."
    )


class InstanceOut(BaseModel):
    id: str
    feature_code: str
    name: str


class ImportOut(BaseModel):
    table: str
    imported_rows: int


@router.get("/instances")
async def get_instances(session: SessionDep, context: ContextDep) -> list[InstanceOut]:
    rows = await list_instances(session, context)
    return [InstanceOut.model_validate(row, from_attributes=True) for row in rows]


@router.post("/instances", status_code=status.HTTP_201_CREATED, responses=problem_responses(409))
async def post_instance(
    request: InstanceCreate, session: SessionDep, context: ContextDep
) -> InstanceOut:
    if not context.is_mandate_admin:
        raise ForbiddenError("only a mandate admin may create feature instances")
    instance = await create_instance(
        session, context, request.feature_code, request.name, request.agent_hints
    )
    await session.commit()
    return InstanceOut.model_validate(instance, from_attributes=True)


@router.get("/instances/{instance_id}/tables", responses=problem_responses(404))
async def get_tables(
    instance_id: InstanceId, runtime: RuntimeDep, context: ContextDep
) -> list[dict[str, Any]]:
    instance = await runtime.feature_data.schema(context, instance_id)
    return [table.describe() for table in instance.feature.tables.values()]


@router.post(
    "/instances/{instance_id}/tables/{table}/import", responses=problem_responses(404, 409, 413)
)
async def import_table(
    instance_id: InstanceId,
    table: TableName,
    runtime: RuntimeDep,
    context: ContextDep,
    file: Annotated[UploadFile, File(description="CSV (UTF-8, header row) or XLSX.")],
) -> ImportOut:
    if not context.can_write:
        raise ForbiddenError(f"your role ({context.role}) may not import data")
    if not file.filename:
        raise InvalidInputError("the upload has no file name")
    limit = runtime.settings.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"the file is larger than {limit} bytes")
    count = await runtime.feature_data.import_file(
        context,
        instance_id,
        table,
        data,
        file.filename,
        max_rows=runtime.all_settings.features.feature_import_max_rows,
    )
    return ImportOut(table=table, imported_rows=count)


@router.post("/instances/{instance_id}/query", responses=problem_responses(404))
async def query(
    instance_id: InstanceId, request: QueryArguments, runtime: RuntimeDep, context: ContextDep
) -> dict[str, Any]:
    return await runtime.feature_data.query(context, instance_id, request)


@router.post("/instances/{instance_id}/aggregate", responses=problem_responses(404))
async def aggregate(
    instance_id: InstanceId, request: AggregateArguments, runtime: RuntimeDep, context: ContextDep
) -> dict[str, Any]:
    return await runtime.feature_data.aggregate(context, instance_id, request)

"""Configuration of assistants (mandate API keys only): create from one whole definition,
read, replace, delete, CRUD of FAQs / flows / help desks, the API catalog, visitor keys and
the label set of the nightly replay. Every change re-validates the whole definition, so a
sub-resource edit can never leave a dangling reference (e.g. a handoff to a deleted desk). An API
catalog whose base URL the egress rule refuses is not saved (422); calls check it again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.assistant_store import AssistantStore
from agentur.assistant.credentials_box import CredentialsBox
from agentur.assistant.definition import ApiCatalog, AssistantDefinition
from agentur.assistant.knowledge_ids import check_knowledge_ids
from agentur.context import RequestContext
from agentur.egress.check_target import check_saved_target
from agentur.egress.parse_url import parse_url
from agentur.egress.policy import EgressPolicy
from agentur.errors import ForbiddenError, InvalidInputError, NotFoundError
from agentur.storage.models.assistant import Assistant

Part = Literal["faqs", "flows", "help_desks"]


def describe_errors(error: ValidationError, prefix: str = "") -> str:
    """`field.path: message; …` so a validation error names the offending field."""
    parts = []
    for item in error.errors(include_url=False):
        location = ".".join(str(p) for p in (prefix, *item["loc"]) if p != "")
        parts.append(f"{location or 'definition'}: {item['msg']}")
    return "; ".join(parts)


def parse_definition(data: dict[str, Any]) -> AssistantDefinition:
    try:
        return AssistantDefinition.model_validate(data)
    except ValidationError as error:
        raise InvalidInputError(describe_errors(error)) from error


def assistant_view(row: Assistant) -> dict[str, Any]:
    definition = dict(row.definition)
    if definition.get("api_catalog"):
        definition["api_catalog"] = {
            **definition["api_catalog"],
            "credential": None,
            "has_credential": row.credential_encrypted is not None,
        }
    return {
        "id": row.id,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "has_labels": row.labels is not None,
        **definition,
    }


@dataclass(eq=False)
class AssistantService:
    session: AsyncSession
    context: RequestContext
    box: CredentialsBox
    api_egress: EgressPolicy  # the policy API-catalog calls are made under
    store: AssistantStore = field(init=False)

    def __post_init__(self) -> None:
        self.store = AssistantStore(self.session, self.context.mandate_id)

    def _require_write(self) -> None:
        if not self.context.can_write:
            raise ForbiddenError("your role may not change assistants")

    async def _check_catalog(self, catalog: ApiCatalog | None) -> None:
        if catalog is not None:
            target = parse_url(catalog.base_url)
            await check_saved_target("api_catalog.base_url", target, self.api_egress)

    async def create(self, definition: AssistantDefinition) -> Assistant:
        self._require_write()
        await self._check_catalog(definition.api_catalog)
        await check_knowledge_ids(self.session, self.context.mandate_id, definition.knowledge)
        sealed = self._seal(definition.api_catalog)
        return await self.store.create(definition, sealed)

    def _seal(self, catalog: ApiCatalog | None) -> str | None:
        return self.box.seal(catalog.credential) if catalog and catalog.credential else None

    async def get(self, assistant_id: str) -> Assistant:
        return await self.store.get(assistant_id)

    async def definition(self, assistant_id: str) -> AssistantDefinition:
        return parse_definition((await self.store.get(assistant_id)).definition)

    async def list(self, limit: int, offset: int) -> list[Assistant]:
        return await self.store.list(limit, offset)

    async def replace(self, assistant_id: str, definition: AssistantDefinition) -> Assistant:
        self._require_write()
        await self._check_catalog(definition.api_catalog)
        row = await self.store.get(assistant_id)
        await check_knowledge_ids(self.session, self.context.mandate_id, definition.knowledge)
        self._store(row, definition)
        return row

    def _store(self, row: Assistant, definition: AssistantDefinition) -> None:
        """Save the definition; a new credential replaces the sealed one, none keeps it."""
        self.store.save(row, definition)
        if definition.api_catalog is None:
            row.credential_encrypted = None
        elif definition.api_catalog.credential:
            row.credential_encrypted = self._seal(definition.api_catalog)

    async def delete(self, assistant_id: str) -> None:
        self._require_write()
        await self.store.delete(assistant_id)

    # --- sub-resources ----------------------------------------------------------------------

    async def items(self, assistant_id: str, part: Part) -> list[dict[str, Any]]:
        return list((await self.store.get(assistant_id)).definition.get(part, []))

    async def put_item(
        self, assistant_id: str, part: Part, item: dict[str, Any], item_id: str | None = None
    ) -> dict[str, Any]:
        """Add (item_id None) or replace an item; returns it as stored (with its id)."""
        self._require_write()
        row = await self.store.get(assistant_id)
        data = dict(row.definition)
        items = list(data.get(part, []))
        if item_id is not None:
            index = next((i for i, old in enumerate(items) if old.get("id") == item_id), None)
            if index is None:
                raise NotFoundError(f"{part[:-1].replace('_', ' ')} {item_id} not found")
            items[index] = {**item, "id": item_id}
            position = index
        else:
            items.append(item)
            position = len(items) - 1
        data[part] = items
        definition = parse_definition(data)
        self.store.save(row, definition)
        return definition.model_dump(mode="json")[part][position]

    async def delete_item(self, assistant_id: str, part: Part, item_id: str) -> None:
        self._require_write()
        row = await self.store.get(assistant_id)
        data = dict(row.definition)
        items = [item for item in data.get(part, []) if item.get("id") != item_id]
        if len(items) == len(data.get(part, [])):
            raise NotFoundError(f"{part[:-1].replace('_', ' ')} {item_id} not found")
        data[part] = items
        self.store.save(row, parse_definition(data))

    async def put_catalog(self, assistant_id: str, catalog: ApiCatalog | None) -> Assistant:
        self._require_write()
        await self._check_catalog(catalog)
        row = await self.store.get(assistant_id)
        data = catalog.model_dump(mode="json") if catalog else None
        self._store(row, parse_definition({**row.definition, "api_catalog": data}))
        return row

    # --- visitor keys and labels --------------------------------------------------------------

    async def issue_visitor_key(self, assistant_id: str) -> tuple[str, str]:
        self._require_write()
        return await self.store.issue_visitor_key(assistant_id)

    async def revoke_visitor_key(self, assistant_id: str, key_id: str) -> None:
        self._require_write()
        await self.store.revoke_visitor_key(assistant_id, key_id)

    async def set_labels(self, assistant_id: str, labels: list[dict[str, Any]] | None) -> None:
        self._require_write()
        (await self.store.get(assistant_id)).labels = labels

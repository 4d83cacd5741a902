"""A hosted vendor as its adapter module declares it: the adapter class and the vendor's settings
(API key, base URL; the environment names `AGENTUR_<VENDOR>_API_KEY` and `…_BASE_URL` are the
fields' names). The list of vendors, with the models each is known to offer, is
`agentur.ai.model_catalog.VENDORS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import field_validator

from agentur.config import PartSettings


@dataclass(frozen=True, slots=True)
class VendorAccess:
    api_key: str | None
    base_url: str | None


class VendorSettings(PartSettings):
    """Base of a vendor's settings: one field ending in `_api_key` and one in `_base_url`.
    A provider is active iff its key is set; an empty value means unset."""

    @field_validator("*", mode="before")
    @classmethod
    def _empty_means_unset(cls, value: object) -> object:
        # `AGENTUR_OPENAI_API_KEY=` in an env file means "not configured", not "empty key".
        return None if value == "" else value

    def access(self) -> VendorAccess:
        values = self.model_dump()
        return VendorAccess(
            next((v for k, v in values.items() if k.endswith("_api_key")), None),
            next((v for k, v in values.items() if k.endswith("_base_url")), None),
        )


@dataclass(frozen=True, slots=True)
class Vendor:
    settings: type[VendorSettings]
    adapter: Any  # the adapter class: (models=, api_key=, base_url=, timeouts=) -> provider

    @property
    def name(self) -> str:
        """The provider name (the adapter's), as models are addressed: `name:model`."""
        return str(self.adapter.name)

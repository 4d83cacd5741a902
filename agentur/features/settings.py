"""Settings of the feature-data part."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings, count


class FeatureSettings(PartSettings):
    feature_cache_seconds: float = Field(
        default=300.0, ge=0, description="How long a feature-data query result is reused."
    )
    feature_cache_entries: int = Field(
        default=1_000, ge=0, description="Feature-data query results kept at most."
    )
    feature_import_max_rows: int = count(200_000, "Rows one CSV/XLSX import may hold.")

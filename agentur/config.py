"""Settings: environment (`AGENTUR_*`) over `agentur.toml` in the working directory over defaults.

Every limit the service enforces lives here, so operators can see and change it in one place.
The README's configuration table is checked against this class by a test.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from agentur.names import DEFAULT_MAX_NAME_LENGTH, MAX_NAME_LENGTH_CEILING

MEBIBYTE = 1024 * 1024


def seconds(default: float, description: str, *, most: float | None = None) -> Any:
    """A time limit: a positive number of seconds (at most `most`)."""
    return Field(default=default, gt=0, le=most, description=description)


def count(default: int, description: str, *, most: int | None = None) -> Any:
    """A count or a size limit: a whole number, at least 1 (at most `most`)."""
    return Field(default=default, ge=1, le=most, description=description)


class PartSettings(BaseSettings):
    """Base of every part's settings (core, ai, agent, knowledge, assistant): one env prefix,
    one optional TOML file, environment over file over defaults. Each part keeps its own class
    beside its code; all of them are documented in the README (a test checks)."""

    model_config = SettingsConfigDict(
        env_prefix="AGENTUR_",
        toml_file="agentur.toml",
        extra="ignore",
        # An invalid setting is named with the problem, never echoed: it may be a password.
        hide_input_in_errors=True,
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))


class Settings(PartSettings):
    """Core settings: storage, server, workspace limits."""

    data_dir: Path = Field(
        default=Path(".agentur"),
        description="Folder for the SQLite database, file blobs and the admin key.",
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL. Empty: SQLite file `<data_dir>/agentur.db`. "
        "`postgresql://…` selects PostgreSQL (needs the `vector` extension).",
    )
    host: str = Field(default="127.0.0.1", description="Address `agentur serve` binds to.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `agentur serve` binds to.")
    database_pool_size: int | None = Field(
        default=None,
        ge=1,
        le=1_000,
        description="Pooled database connections per worker process. Empty: 8 on SQLite, 10 on "
        "PostgreSQL.",
    )
    database_max_overflow: int | None = Field(
        default=None,
        ge=0,
        le=1_000,
        description="Connections a worker opens beyond the pool under load (closed again when "
        "returned). Empty: 0 on SQLite, 10 on PostgreSQL.",
    )
    database_pool_timeout_seconds: float = seconds(
        5.0,
        "How long a request waits for a free database connection; then 503 with `Retry-After`.",
        most=300,
    )
    database_background_wait_seconds: float = seconds(
        120.0,
        "How long background work (agent runs) waits for a free database "
        "connection before it fails; it queues behind the waiting requests.",
        most=3_600,
    )
    database_busy_timeout_seconds: float = seconds(
        10.0,
        "SQLite: how long a write waits for the database's write lock; then 503 "
        "with `Retry-After`.",
        most=300,
    )
    max_upload_bytes: int = count(100 * MEBIBYTE, "Largest accepted upload; larger ones get 413.")
    max_body_bytes: int = Field(
        default=MEBIBYTE,
        ge=1_024,
        description="Largest request body of every route without a limit of its own (JSON "
        "routes, `/mcp`); larger ones get 413 before they are read.",
    )
    max_sign_in_body_bytes: int = Field(
        default=16 * 1024,
        ge=1_024,
        description="Largest request body of the sign-in and session routes (`/v1/sessions…`).",
    )
    max_model_body_bytes: int = Field(
        default=32 * MEBIBYTE,
        ge=1_024,
        description="Largest request body of `/openai/v1` (messages may carry images as data "
        "URLs).",
    )
    max_name_length: int = count(
        DEFAULT_MAX_NAME_LENGTH,
        "Longest name of anything a user names (files, folders, connections, "
        "assistants, flows, workflows, …).",
        most=MAX_NAME_LENGTH_CEILING,
    )
    default_read_window: int = count(
        20_000, "Characters a windowed read returns when no limit is given."
    )
    max_read_window: int = count(200_000, "Largest `limit` a windowed read accepts (422 above).")
    blob_grace_seconds: float = Field(
        default=600.0,
        ge=0,
        description="Bytes written or re-put this recently survive the delete of their last "
        "file (a concurrent upload may not have committed yet); a sweep removes them later.",
    )
    default_language: str = Field(
        default="en", description="Language when the request has no usable `Accept-Language`."
    )
    session_max_age_seconds: int = Field(
        default=12 * 3600,
        ge=60,
        le=30 * 24 * 3600,
        description="Lifetime of a web app sign-in (cookie session); then it signs in again.",
    )
    log_level: str = Field(default="INFO", description="Python logging level.")
    metrics_auth: Literal["auto", "none", "bearer", "api_key"] = Field(
        default="auto",
        description="Who may read `/metrics`: `auto` = the `metrics_token` as bearer when set, "
        "else only clients on the loopback address; `none` = anyone; `bearer` = the "
        "`metrics_token`; `api_key` = an API key of a platform admin.",
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description="Bearer token Prometheus sends to scrape `/metrics` (`auto` and `bearer`).",
    )
    assistant_secret_key: str | None = Field(
        default=None,
        description="Fernet key that encrypts stored secrets (API-catalog and connection "
        "credentials). Empty: a key file `<data_dir>/assistant-secret.key` is created (mode "
        "0600) and used.",
    )

    @field_validator("database_url")
    @classmethod
    def _empty_means_default(cls, value: str | None) -> str | None:
        return value or None

    @cached_property
    def resolved_database_url(self) -> str:
        """The async SQLAlchemy URL for the configured database."""
        if self.database_url is None:
            return f"sqlite+aiosqlite:///{(self.data_dir / 'agentur.db').resolve()}"
        return to_async_url(self.database_url)

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    @property
    def admin_key_path(self) -> Path:
        return self.data_dir / "admin.key"


def to_async_url(url: str) -> str:
    """Map plain `postgresql://` and `sqlite://` URLs to the async drivers we ship."""
    for plain, async_prefix in (
        ("postgresql://", "postgresql+asyncpg://"),
        ("postgres://", "postgresql+asyncpg://"),
        ("postgresql+psycopg://", "postgresql+asyncpg://"),
        ("sqlite:///", "sqlite+aiosqlite:///"),
    ):
        if url.startswith(plain):
            return async_prefix + url[len(plain) :]
    return url

"""One page of a query: `LIMIT`/`OFFSET` within what both databases accept.

SQLite and PostgreSQL take a signed 64-bit OFFSET; a larger one raised OverflowError deep in
the driver (a 500). Every paged query goes through `page`, so the bound holds for the API,
the CLI and the agent's tools alike."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import Select

from agentur.errors import InvalidInputError

MAX_OFFSET = 2**63 - 1

QueryT = TypeVar("QueryT", bound=Select)  # type: ignore[type-arg]


def check_page(limit: int, offset: int) -> None:
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidInputError(f"offset must be between 0 and {MAX_OFFSET}")
    if not 1 <= limit <= MAX_OFFSET:
        raise InvalidInputError(f"limit must be between 1 and {MAX_OFFSET}")


def page(query: QueryT, limit: int, offset: int) -> QueryT:
    """`query` limited to `limit` rows from `offset`, or InvalidInputError naming the bad one."""
    check_page(limit, offset)
    return query.limit(limit).offset(offset)

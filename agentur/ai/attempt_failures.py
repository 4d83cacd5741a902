"""Why the candidate models of one call were skipped, turned into one specific error."""

from __future__ import annotations

import logging

from agentur.ai.gateway_errors import BudgetExceededError, ProviderUnavailableError
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ProviderError

logger = logging.getLogger("agentur.ai.service")


def log_retry(spec: ModelSpec, error: ProviderError, attempt: int) -> None:
    # Status and model only: provider messages may echo prompt content.
    logger.warning("retry %d on %s after status %s", attempt, spec.id, error.status_code)


class Failures:
    """Collects why candidates were skipped, for one specific error at the end."""

    def __init__(self) -> None:
        self.budget: BudgetExceededError | None = None
        self.errors: list[tuple[ModelSpec, ProviderError]] = []

    def refused(self, refusal: BudgetExceededError) -> None:
        self.budget = self.budget or refusal

    def failed(self, spec: ModelSpec, error: ProviderError) -> None:
        logger.warning("model %s failed with status %s", spec.id, error.status_code)
        self.errors.append((spec, error))

    def error(self) -> Exception:
        if not self.errors and self.budget is not None:
            return self.budget
        tried = "; ".join(
            f"{spec.id}: {'status ' + str(e.status_code) if e.status_code else 'no status'}"
            f"{' (retried)' if e.retryable else ''}"
            for spec, e in self.errors
        )
        return ProviderUnavailableError(f"every model attempt failed ({tried})")

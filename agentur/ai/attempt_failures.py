"""Why the candidate models of one call were skipped, turned into one specific error."""

from __future__ import annotations

import logging

from agentur.ai.gateway_errors import BudgetExceededError, ProviderUnavailableError
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, ProviderError

logger = logging.getLogger("agentur.ai.service")


def log_retry(spec: ModelSpec, error: ProviderError, attempt: int) -> None:
    # Where and what only: provider messages may echo prompt content.
    logger.warning("retry %d of %s after %s", attempt, spec.id, error.summary)


class Failures:
    """Collects why candidates were skipped, for one specific error at the end."""

    def __init__(self) -> None:
        self.budget: BudgetExceededError | None = None
        self.errors: list[tuple[ModelSpec, ProviderError]] = []

    def refused(self, refusal: BudgetExceededError) -> None:
        self.budget = self.budget or refusal

    def failed(self, spec: ModelSpec, error: ProviderError) -> None:
        logger.warning("model attempt failed: %s", error.summary)
        self.errors.append((spec, error))

    def gave_up_on(self, spec: ModelSpec) -> bool:
        """Whether an earlier candidate's server got the prompt and did not answer in time:
        another model there would queue behind the prompt it may still be reading."""
        waiting = (ErrorKind.first_token_timeout, ErrorKind.reply_timeout)
        return any(
            failed.provider == spec.provider and error.kind in waiting
            for failed, error in self.errors
        )

    def error(self) -> Exception:
        if not self.errors and self.budget is not None:
            return self.budget
        # Each error names provider, model, host and kind, and the vendor's message (for the
        # caller who sent the prompt; logs keep to `summary`).
        tried = "; ".join(str(error) for _, error in self.errors)
        return ProviderUnavailableError(f"every model attempt failed: {tried}")

"""Errors the gateway raises to its callers. Details name models, entity types and amounts —
never prompt content or the values neutralization protects."""

from __future__ import annotations

from agentur.errors import AgenturError, ForbiddenError


class NoModelError(AgenturError, status_code=503, title="No model available"):
    """No configured (and allowed) model fits the request."""


class ContextLengthExceededError(
    AgenturError, status_code=400, title="Prompt exceeds the context window"
):
    """The prompt is larger than the context window of the requested model (or of every model
    that could serve it): the caller must send less, so it is a client error."""

    def __init__(self, detail: str, *, prompt_tokens: int, context_window: int) -> None:
        super().__init__(detail)
        self.prompt_tokens = prompt_tokens
        self.context_window = context_window


class ModelNotAllowedError(ForbiddenError):
    """The mandate's restrictions exclude the requested model or an unpriced one."""


class NeutralizationBlockedError(
    AgenturError, status_code=422, title="Blocked by neutralization policy"
):
    """Policy `block` found personal data; the detail names the entity types only."""

    def __init__(self, entity_types: list[str]) -> None:
        self.entity_types = sorted(set(entity_types))
        super().__init__(
            "the request contains personal data of type "
            + ", ".join(self.entity_types)
            + " and the mandate's neutralization policy is 'block'"
        )


class ImagesBlockedError(NeutralizationBlockedError):
    """Policy `block` and a request with images: neutralization cannot read an image, so it
    cannot vouch for one (text in a scan or a photographed ID card would leave unchecked)."""

    def __init__(self, count: int) -> None:
        self.entity_types = []
        AgenturError.__init__(
            self,
            f"the request carries {count} image(s) and the mandate's neutralization policy is "
            "'block': images cannot be checked for personal data, so they are never sent",
        )


class ImageRejectedError(AgenturError, status_code=422, title="Image rejected"):
    """An image part that is too large, not an image, or in a format providers do not take."""


class BudgetExceededError(AgenturError, status_code=402, title="AI budget exceeded"):
    """The preflight found the mandate's balance or monthly limit too small for the call."""


class ProviderUnavailableError(AgenturError, status_code=502, title="Model provider failed"):
    """Every attempt (retries and fallbacks) failed."""

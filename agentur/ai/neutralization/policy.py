"""Which neutralization policy applies to one call."""

from __future__ import annotations

from agentur.ai.settings import NeutralizationPolicy
from agentur.context import RequestContext


def effective_policy(
    mandate_policy: NeutralizationPolicy, context: RequestContext
) -> NeutralizationPolicy:
    # `require_neutralization` can only tighten: off becomes neutralize, block stays block.
    if context.require_neutralization and mandate_policy is NeutralizationPolicy.off:
        return NeutralizationPolicy.neutralize
    return mandate_policy

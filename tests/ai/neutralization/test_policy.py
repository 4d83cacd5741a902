"""`require_neutralization` may only tighten the mandate's policy, never loosen it."""

from __future__ import annotations

import pytest

from agentur.ai.neutralization.policy import effective_policy
from agentur.ai.settings import NeutralizationPolicy
from agentur.context import RequestContext, Role


@pytest.mark.parametrize(
    ("mandate", "required", "expected"),
    [
        (NeutralizationPolicy.off, False, NeutralizationPolicy.off),
        (NeutralizationPolicy.off, True, NeutralizationPolicy.neutralize),
        (NeutralizationPolicy.neutralize, True, NeutralizationPolicy.neutralize),
        (NeutralizationPolicy.block, True, NeutralizationPolicy.block),
        (NeutralizationPolicy.block, False, NeutralizationPolicy.block),
    ],
)
def test_require_neutralization_only_tightens(mandate, required, expected):
    context = RequestContext("u", "m", Role.member, require_neutralization=required)
    assert effective_policy(mandate, context) is expected

"""The real-model bench's Saturday-closing check (hours.md: "Saturday 9:00 to 16:00"): a
12-hour or 24-hour closing time passes, another hour or a stray 4 does not. The agent's answer,
the written saturday.txt and the visitor's answers all use it."""

from __future__ import annotations

import pytest

from bench.real_model_tasks import SATURDAY_CLOSING


@pytest.mark.parametrize(
    "text",
    ["Saturday: 9:00-16:00", "Samstag 9 bis 16 Uhr", "9am to 4pm", "open until 4:00 p.m."],
)
def test_the_closing_time_in_either_clock_passes(text: str) -> None:
    assert SATURDAY_CLOSING.search(text)


@pytest.mark.parametrize(
    "text", ["Saturday: 9:00-14:00", "closed after 160 minutes", "4 days a week", "until 14pm"]
)
def test_another_time_fails(text: str) -> None:
    assert not SATURDAY_CLOSING.search(text)

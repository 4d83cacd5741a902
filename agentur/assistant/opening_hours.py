"""Is a help-desk option open now? Opening hours are in the desk's own time zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from agentur.assistant.definition import WEEKDAYS, OpeningHours


def is_open(hours: OpeningHours | None, now: datetime) -> bool:
    if hours is None:
        return True
    local = now.astimezone(ZoneInfo(hours.timezone))
    minute = local.hour * 60 + local.minute
    for item in hours.days.get(WEEKDAYS[local.weekday()], []):
        start, end = item.split("-")
        start_h, start_m = map(int, start.split(":"))
        end_h, end_m = map(int, end.split(":"))
        if start_h * 60 + start_m <= minute < end_h * 60 + end_m:
            return True
    return False

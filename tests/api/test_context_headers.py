"""The request context from headers (X1, A7): time zone, language, neutralization switch."""

from __future__ import annotations

from datetime import datetime

import httpx

from tests.conftest import Tenants

FALLS_BACK_TO_UTC = [
    "Mars/Olympus_Mons",
    "../../etc/passwd",
    "/etc/localtime",
    "Europe/../../../etc/passwd",
    "localtime",
    "",
    "   ",
    "Europe/Zurich; DROP TABLE users",
    "europe/zurich",
    "x" * 300,
]


async def _me(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, object]:
    response = await client.get("/v1/me", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_valid_time_zone_sets_now_in_that_zone(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    body = await _me(client, {**alice.headers, "X-User-Timezone": "Europe/Zurich"})
    assert body["timezone"] == "Europe/Zurich"
    assert str(body["now"])[-6:] in ("+01:00", "+02:00")
    tokyo = await _me(client, {**alice.headers, "X-User-Timezone": " Asia/Tokyo "})
    assert tokyo["timezone"] == "Asia/Tokyo" and str(tokyo["now"]).endswith("+09:00")
    # Same instant, whatever the zone.
    zurich_now = datetime.fromisoformat(str(body["now"]))
    tokyo_now = datetime.fromisoformat(str(tokyo["now"]))
    assert abs((tokyo_now - zurich_now).total_seconds()) < 600


async def test_missing_or_invalid_time_zone_means_utc(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    missing = await _me(client, alice.headers)
    assert missing["timezone"] == "UTC"
    assert str(missing["now"]).endswith(("Z", "+00:00"))
    for value in FALLS_BACK_TO_UTC:
        body = await _me(client, {**alice.headers, "X-User-Timezone": value})
        assert body["timezone"] == "UTC", value
        assert str(body["now"]).endswith(("Z", "+00:00")), value


LANGUAGES = [
    (None, "en"),
    ("de-CH", "de"),
    ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr"),
    ("en;q=0.3, de-CH;q=0.9, it;q=0.5", "de"),
    ("de;q=0, it", "it"),
    ("*", "en"),
    ("ja;q=abc, pt-BR;q=0.1", "pt"),
    ("DE-de", "de"),
    ("en, de", "en"),
    ("!!!, 12", "en"),
]


async def test_language_from_accept_language(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    for header, language in LANGUAGES:
        headers = alice.headers if header is None else {**alice.headers, "Accept-Language": header}
        assert (await _me(client, headers))["language"] == language, header


async def test_neutralization_header_only_switches_on(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    assert (await _me(client, alice.headers))["require_neutralization"] is False
    for value in ("1", "true", "TRUE", "yes", "on"):
        headers = {**alice.headers, "X-Require-Neutralization": value}
        assert (await _me(client, headers))["require_neutralization"] is True, value
    for value in ("0", "false", "no", "off", "", "maybe"):
        headers = {**alice.headers, "X-Require-Neutralization": value}
        assert (await _me(client, headers))["require_neutralization"] is False, value


async def test_me_reports_identity(client: httpx.AsyncClient, tenants: Tenants) -> None:
    alice = await tenants.member()
    body = await _me(client, alice.headers)
    assert (body["user_id"], body["mandate_id"], body["role"]) == (
        alice.user_id,
        alice.mandate_id,
        "member",
    )
    assert body["feature_instance_id"] is None

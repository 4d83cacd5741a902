"""`GET /metrics`: the Prometheus text (or OpenMetrics) exposition of this process (not part
of the `/v1` REST API, so it is left out of the OpenAPI document; its wire format is
Prometheus's).

Who may scrape is the `metrics_auth` setting. The safe default (`auto`) needs the
`metrics_token` as bearer when one is set and otherwise answers only clients on the loopback
address, so a fresh install does not publish its model names and traffic to the network."""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import APIRouter, Request, Response
from prometheus_client import REGISTRY
from prometheus_client.exposition import choose_encoder

from agentur.accounts.api_keys import authenticate
from agentur.api.dependencies import BearerDep, RuntimeDep, SessionDep, bearer_token
from agentur.config import Settings
from agentur.errors import AuthenticationError, ForbiddenError

router = APIRouter(tags=["observability"], include_in_schema=False)


def is_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(settings: Settings, token: str) -> None:
    expected = settings.metrics_token.get_secret_value() if settings.metrics_token else ""
    if not expected:
        raise ForbiddenError("metrics_auth is 'bearer' but no metrics_token is configured")
    if not hmac.compare_digest(token.encode(), expected.encode()):
        raise AuthenticationError("send the metrics token as 'Authorization: Bearer <token>'")


@router.get("/metrics")
async def metrics(
    request: Request, runtime: RuntimeDep, session: SessionDep, credentials: BearerDep
) -> Response:
    """This worker's metrics in the Prometheus text format, or in OpenMetrics when the
    scraper's `Accept` asks for `application/openmetrics-text` (the client library decides)."""
    settings = runtime.settings
    token = bearer_token(credentials)
    mode = settings.metrics_auth
    if mode == "auto":
        mode = "bearer" if settings.metrics_token else "loopback"
    if mode == "loopback" and not is_loopback(request):
        raise ForbiddenError(
            "/metrics answers only loopback clients unless AGENTUR_METRICS_TOKEN or "
            "AGENTUR_METRICS_AUTH is set"
        )
    if mode == "bearer":
        check_token(settings, token)
    if mode == "api_key":
        if not token:
            raise AuthenticationError("send an API key as 'Authorization: Bearer <key>'")
        if not (await authenticate(session, token)).is_platform_admin:
            raise ForbiddenError("/metrics needs the key of a platform admin")
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encode(REGISTRY), headers={"Content-Type": content_type})

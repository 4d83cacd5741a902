"""API catalog: every URL is validated before traffic leaves; attacks never reach the
server; credentials are injected server-side and never show up in results or events."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agentur.ai.messages import ToolCall
from agentur.assistant.api_url import ApiCallRejected, prepare_call
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.assistant_tools import (
    AssistantContext,
    AssistantDeps,
    offered_tools,
    run_assistant_tool,
)
from agentur.assistant.call_api import ApiCallFailed, ApiLimits
from agentur.assistant.definition import ApiCatalog, ApiCredential
from agentur.context import Role
from agentur.egress.check_target import EgressRefusedError
from agentur.egress.policy import AllowList
from agentur.errors import TooLargeError
from tests.assistant.http_server import Recorded, recording_server
from tests.assistant.turns import CONTEXT

SECRET = "s3cr3t-token-value"
# The test server listens on 127.0.0.1, which the default egress policy refuses.
LIMITS = ApiLimits(
    timeout_seconds=0.5, max_response_bytes=1_000, max_redirects=2, allow_private_targets=True
)


@pytest.fixture
def server() -> Iterator[tuple[str, Recorded]]:
    with recording_server() as running:
        yield running


def catalog(base: str) -> ApiCatalog:
    return ApiCatalog.model_validate(
        {
            "base_url": f"{base}/api",
            "endpoints": [
                {
                    "name": "order",
                    "path": "/orders/{order_id}",
                    "description": "One order",
                    "query_params": ["fields"],
                },
                {"name": "big", "path": "/big"},
                {"name": "away", "path": "/away"},
                {"name": "moved", "path": "/moved"},
                {"name": "slow", "path": "/slow"},
                {
                    "name": "create",
                    "method": "POST",
                    "path": "/orders",
                    "body_schema": {
                        "type": "object",
                        "required": ["sku"],
                        "properties": {"sku": {"type": "string"}},
                        "additionalProperties": False,
                    },
                },
            ],
        }
    )


def api(base: str, limits: ApiLimits = LIMITS) -> AssistantApi:
    credential = ApiCredential(kind="bearer", value=SECRET)
    return AssistantApi(catalog(base), limits, lambda: credential, has_credential=True)


PATH_ATTACKS = [
    "../admin",
    "..",
    ".",
    "..%2fadmin",
    "%2e%2e/admin",
    "%2e%2e%2fadmin",
    "%252e%252e%252f",
    "a/../../admin",
    "..\\admin",
    "a\\b",
    "@evil.test",
    "x@127.0.0.2",
    "//evil.test/x",
    "/admin",
    "a?x=1",
    "a#frag",
    "a b",
    "a%00",
    "a\nb",
    "http://evil.test",
    "evil.test:80",
    "%2F",
    "．．",
    "１",
    "",
]


@pytest.mark.parametrize("payload", PATH_ATTACKS)
async def test_path_attacks_are_rejected_before_any_request(server, payload: str) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    with pytest.raises(ApiCallRejected):
        await api(base).call("order", {"order_id": payload})
    assert recorded.requests == []


@pytest.mark.parametrize(
    ("endpoint", "path_params", "query", "body"),
    [
        ("../order", {"order_id": "1"}, None, None),  # not a catalog endpoint
        ("order", {}, None, None),  # missing parameter
        ("order", {"order_id": "1", "host": "evil"}, None, None),  # extra parameter
        ("order", {"order_id": ["1"]}, None, None),  # not a scalar
        ("order", {"order_id": "1"}, {"admin": "1"}, None),  # query key not allowed
        ("order", {"order_id": "1"}, None, {"x": 1}),  # GET takes no body
        ("create", {}, None, {"sku": 5}),  # body fails its schema
        ("create", {}, None, {"sku": "a", "price": 0}),  # extra body field
    ],
)
async def test_other_invalid_calls_are_rejected(server, endpoint, path_params, query, body) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    with pytest.raises(ApiCallRejected):
        await api(base).call(endpoint, path_params, query, body)
    assert recorded.requests == []


def test_custom_parameter_pattern_still_blocks_separators() -> None:
    loose = ApiCatalog.model_validate(
        {
            "base_url": "https://api.example.test",
            "endpoints": [{"name": "file", "path": "/files/{name}", "path_params": {"name": ".*"}}],
        }
    )
    for payload in ("../etc", "a/b", "%2e%2e"):
        with pytest.raises(ApiCallRejected):
            prepare_call(loose, "file", {"name": payload})
    assert (
        prepare_call(loose, "file", {"name": "report.pdf"}).url
        == "https://api.example.test/files/report.pdf"
    )


async def test_valid_call_injects_the_credential_and_windows_the_response(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    response = await api(base).call("order", {"order_id": "A-17"}, {"fields": "status&admin=1"})
    assert recorded.requests[0]["path"] == "/api/orders/A-17?fields=status%26admin%3D1"
    assert recorded.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    window = response.window(0, 20)
    assert window["total_length"] == len(response.text) and window["next_offset"] == 20
    assert json.loads(response.text)["status"] == "shipped"


async def test_post_with_a_valid_body(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    response = await api(base).call("create", {}, None, {"sku": "shoe-1"})
    assert response.status == 201
    assert recorded.requests[0]["method"] == "POST" and json.loads(
        recorded.requests[0]["body"]
    ) == {"sku": "shoe-1"}


async def test_redirect_to_another_host_is_not_followed(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    with recording_server() as (other_base, other):
        recorded.redirect_target = other_base.replace("127.0.0.1", "localhost") + "/api/orders/1"
        with pytest.raises(ApiCallFailed, match="redirect not followed"):
            await api(base).call("away")
        assert other.requests == []
    assert [r["path"] for r in recorded.requests] == ["/api/away"]


async def test_same_host_redirect_is_followed(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    response = await api(base).call("moved")
    assert json.loads(response.text)["order"] == "77"
    assert [r["path"] for r in recorded.requests] == ["/api/moved", "/api/orders/77"]


async def test_size_cap_and_timeout(server) -> None:  # type: ignore[no-untyped-def]
    base, _ = server
    with pytest.raises(TooLargeError):
        await api(base).call("big")
    with pytest.raises(ApiCallFailed, match="did not answer"):
        await api(base).call("slow")


async def test_tools_never_show_the_credential(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    context = AssistantContext(
        request=CONTEXT.with_changes(role=Role.member),
        runtime=None,  # type: ignore[arg-type]
        deps=AssistantDeps(api=api(base)),
    )
    tools = offered_tools(with_api=True)

    async def call(name: str, **arguments: object):  # type: ignore[no-untyped-def]
        return await run_assistant_tool(tools, ToolCall("c", name, arguments), context)

    described = await call("inspect_api")
    called = await call("call_api", endpoint="order", path_params={"order_id": "5"})
    attacked = await call("call_api", endpoint="order", path_params={"order_id": "../x"})
    assert not described.is_error and '"authenticated": true' in described.content
    assert not called.is_error and "shipped" in json.loads(called.content)["content"]
    assert attacked.is_error and "not allowed" in attacked.content
    for outcome in (described, called, attacked):
        assert SECRET not in outcome.content
    assert len(recorded.requests) == 1


async def test_a_read_only_context_cannot_call_the_api(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    context = AssistantContext(request=CONTEXT, runtime=None, deps=AssistantDeps(api=api(base)))  # type: ignore[arg-type]
    outcome = await run_assistant_tool(
        offered_tools(with_api=True),
        ToolCall("c", "call_api", {"endpoint": "order", "path_params": {"order_id": "5"}}),
        context,
    )
    assert outcome.is_error and "read-only" in outcome.content
    assert recorded.requests == []


DEFAULT_LIMITS = ApiLimits(timeout_seconds=0.5, max_response_bytes=1_000, max_redirects=2)


@pytest.mark.parametrize(
    "base",
    [
        "http://169.254.169.254/latest/meta-data",
        "http://localhost:8080",
        "http://127.0.0.1:9",
        "http://10.0.0.5",
        "http://[::1]:8080",
        "http://metadata.google.internal",
        "http://100.100.100.200",
        "http://[2002:a9fe:a9fe::]",
    ],
)
async def test_default_policy_refuses_internal_base_urls(base: str) -> None:
    # Nothing listens on most of these: a refusal here comes from the policy, not the network.
    with pytest.raises(EgressRefusedError):
        await api(base, DEFAULT_LIMITS).call("order", {"order_id": "1"})


async def test_default_policy_sends_nothing_to_a_loopback_server(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    with pytest.raises(EgressRefusedError, match="loopback"):
        await api(base, DEFAULT_LIMITS).call("order", {"order_id": "1"})
    assert recorded.requests == []


async def test_one_internal_host_can_be_allowed_by_host_and_port(server) -> None:  # type: ignore[no-untyped-def]
    base, recorded = server
    host_port = base.removeprefix("http://")
    exempt = ApiLimits(0.5, 1_000, 2, allowed=AllowList.parse(host_port))
    response = await api(base, exempt).call("order", {"order_id": "1"})
    assert response.status == 200 and len(recorded.requests) == 1
    other_port = ApiLimits(0.5, 1_000, 2, allowed=AllowList.parse("127.0.0.1:1"))
    with pytest.raises(EgressRefusedError):
        await api(base, other_port).call("order", {"order_id": "1"})
    assert len(recorded.requests) == 1


@pytest.mark.parametrize(
    "base", ["http://0177.0.0.1:18201/api", "http://2130706433/api", "http://a@b.test/api"]
)
def test_a_base_url_that_hides_its_target_is_refused_when_saved(base: str) -> None:
    with pytest.raises(ValueError, match="base_url"):
        catalog(base)


async def test_a_stored_base_url_httpx_cannot_parse_fails_cleanly_at_call_time(server) -> None:  # type: ignore[no-untyped-def]
    # A definition saved before base URLs were checked: a clear failure, never a crash.
    _, recorded = server
    stored = catalog("http://127.0.0.1:1").model_copy(
        update={"base_url": "http://0177.0.0.1:9/api"}
    )
    broken = AssistantApi(stored, LIMITS, lambda: None)
    with pytest.raises((ApiCallFailed, EgressRefusedError, ApiCallRejected)):
        await broken.call("order", {"order_id": "1"})
    assert recorded.requests == []

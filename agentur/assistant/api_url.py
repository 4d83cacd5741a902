"""Builds the final URL of an API-catalog call and validates it before any traffic leaves.

Everything comes from the catalog: the model only supplies parameter values, and those are
checked twice — each value on its own (no separators, no encodings, no traversal), then the
assembled URL as a whole (same scheme, host and port as the base URL, no user info, a
normalized path that matches the endpoint's template under the base path). A request that
fails any check is never sent.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

import jsonschema

from agentur.assistant.definition import ApiCatalog, ApiEndpoint
from agentur.errors import InvalidInputError

DEFAULT_PARAM_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.~-]{0,127}"
# Never allowed in a path value, whatever the endpoint's own pattern says.
FORBIDDEN_IN_VALUE = re.compile(r"[/\\%@?#:;\s\x00-\x1f\x7f]|\.\.")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
MAX_BODY_BYTES = 64_000
BODYLESS = ("GET", "DELETE")


class ApiCallRejected(InvalidInputError):
    """The call was refused before any request left the machine."""


@dataclass(frozen=True, slots=True)
class PreparedCall:
    method: str
    url: str
    body: bytes | None
    endpoint: ApiEndpoint


def find_endpoint(catalog: ApiCatalog, name: str) -> ApiEndpoint:
    for endpoint in catalog.endpoints:
        if endpoint.name == name:
            return endpoint
    raise ApiCallRejected(f"endpoint {name!r} is not in the API catalog")


def _scalar(name: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ApiCallRejected(f"parameter {name!r} must be a string or a number")
    return str(value)


def _path_value(endpoint: ApiEndpoint, name: str, value: Any) -> str:
    text = _scalar(name, value)
    if not text.isascii() or FORBIDDEN_IN_VALUE.search(text) or text in (".", ""):
        raise ApiCallRejected(f"path parameter {name!r} contains characters that are not allowed")
    pattern = endpoint.path_params.get(name, DEFAULT_PARAM_PATTERN)
    if not re.fullmatch(pattern, text):
        raise ApiCallRejected(f"path parameter {name!r} does not match {pattern!r}")
    return text


def _template_regex(endpoint: ApiEndpoint, base_path: str) -> re.Pattern[str]:
    parts = PLACEHOLDER.split(endpoint.path)
    regex = "".join(
        re.escape(part)
        if index % 2 == 0
        else f"(?:{endpoint.path_params.get(part, DEFAULT_PARAM_PATTERN)})"
        for index, part in enumerate(parts)
    )
    return re.compile(re.escape(base_path) + regex)


def check_same_origin(url: str, base_url: str) -> None:
    """The URL's scheme, host and port equal the base URL's and it carries no user info."""
    final, base = urlsplit(url), urlsplit(base_url)
    if (final.scheme, final.netloc.lower()) != (base.scheme, base.netloc.lower()):
        raise ApiCallRejected("the request would leave the catalog's host")
    if final.username is not None or final.password is not None or "@" in final.netloc:
        raise ApiCallRejected("user info in the URL is not allowed")


def check_path(path: str, base_path: str) -> None:
    """No `//`, no dot segments, no percent-encoding tricks, stays under the base path."""
    if "//" in path or "\\" in path or unquote(path) != path:
        raise ApiCallRejected("the request path is not in normal form")
    if posixpath.normpath(path) != path.rstrip("/") and path != "/":
        raise ApiCallRejected("the request path contains dot segments")
    if not path.startswith(base_path):
        raise ApiCallRejected("the request path leaves the catalog's base path")


def prepare_call(
    catalog: ApiCatalog,
    endpoint_name: str,
    path_params: dict[str, Any] | None = None,
    query: dict[str, Any] | None = None,
    body: Any = None,
) -> PreparedCall:
    endpoint = find_endpoint(catalog, endpoint_name)
    path_params = dict(path_params or {})
    wanted = PLACEHOLDER.findall(endpoint.path)
    missing = [name for name in wanted if name not in path_params]
    extra = [name for name in path_params if name not in wanted]
    if missing or extra:
        raise ApiCallRejected(f"path parameters: missing {missing}, unexpected {extra}")
    path = PLACEHOLDER.sub(
        lambda m: _path_value(endpoint, m.group(1), path_params[m.group(1)]), endpoint.path
    )
    base = urlsplit(catalog.base_url)
    base_path = base.path.rstrip("/")
    full_path = base_path + path
    url = f"{base.scheme}://{base.netloc}{full_path}"
    query = dict(query or {})
    unknown = [name for name in query if name not in endpoint.query_params]
    if unknown:
        raise ApiCallRejected(f"query parameters {unknown} are not allowed for {endpoint.name!r}")
    if query:
        url += "?" + urlencode({name: _scalar(name, value) for name, value in query.items()})
    # Check the assembled URL as a whole, as a parser on the wire would read it.
    check_same_origin(url, catalog.base_url)
    final_path = urlsplit(url).path
    check_path(final_path, base_path)
    if not _template_regex(endpoint, base_path).fullmatch(final_path):
        raise ApiCallRejected("the request path does not match the endpoint's template")
    return PreparedCall(endpoint.method, url, _body(endpoint, body), endpoint)


def _body(endpoint: ApiEndpoint, body: Any) -> bytes | None:
    if body is None:
        return None
    if endpoint.method in BODYLESS or endpoint.body_schema is None:
        raise ApiCallRejected(f"endpoint {endpoint.name!r} takes no body")
    try:
        jsonschema.validate(body, endpoint.body_schema)
    except jsonschema.ValidationError as error:
        raise ApiCallRejected(
            f"body does not match the endpoint's schema: {error.message}"
        ) from error
    encoded = json.dumps(body).encode()
    if len(encoded) > MAX_BODY_BYTES:
        raise ApiCallRejected(f"body is larger than {MAX_BODY_BYTES} bytes")
    return encoded

"""Jira Cloud REST API v3 (documented wire format): issue search by JQL with token paging
(`/rest/api/3/search/jql`, `nextPageToken`/`isLast`), one issue, adding a comment. Error bodies
(`{"errorMessages": [...], "errors": {field: message}}`) become one clear message."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from agentur.connections.http_access import HttpAccess, call_json

SEARCH_FIELDS = "summary,status,assignee,updated,issuetype"


def _describe(data: dict[str, Any]) -> str:
    messages = [str(m) for m in data.get("errorMessages") or []]
    messages += [f"{field}: {text}" for field, text in (data.get("errors") or {}).items()]
    return "; ".join(messages)


async def _call(access: HttpAccess, method: str, path: str, **options: Any) -> Any:
    return await call_json(access, "Jira", _describe, method, path, **options)


def _summary(issue: dict[str, Any]) -> dict[str, Any]:
    fields = issue.get("fields") or {}
    return {
        "key": issue.get("key"),
        "summary": fields.get("summary"),
        "status": (fields.get("status") or {}).get("name"),
        "type": (fields.get("issuetype") or {}).get("name"),
        "assignee": (fields.get("assignee") or {}).get("displayName"),
        "updated": fields.get("updated"),
    }


async def search_issues(
    access: HttpAccess, jql: str, max_results: int, page_token: str | None
) -> dict[str, Any]:
    params = {"jql": jql, "maxResults": str(max_results), "fields": SEARCH_FIELDS}
    if page_token:
        params["nextPageToken"] = page_token
    data = await _call(access, "GET", "rest/api/3/search/jql", params=params)
    return {
        "issues": [_summary(issue) for issue in data.get("issues") or []],
        "next_page_token": None if data.get("isLast", True) else data.get("nextPageToken"),
    }


def adf_text(node: Any) -> str:
    """Plain text of an Atlassian Document Format tree (descriptions, comments)."""
    if not isinstance(node, dict):
        return ""
    if node.get("type") == "text":
        return str(node.get("text", ""))
    inner = "".join(adf_text(child) for child in node.get("content") or [])
    block = node.get("type") in ("paragraph", "heading", "listItem", "codeBlock")
    return inner + "\n" if block else inner


async def get_issue(access: HttpAccess, key: str) -> dict[str, Any]:
    fields = f"{SEARCH_FIELDS},description,comment"
    data = await _call(access, "GET", f"rest/api/3/issue/{quote(key)}", params={"fields": fields})
    comments = ((data.get("fields") or {}).get("comment") or {}).get("comments") or []
    return {
        **_summary(data),
        "description": adf_text((data.get("fields") or {}).get("description")).strip(),
        "comments": [
            {
                "author": (c.get("author") or {}).get("displayName"),
                "created": c.get("created"),
                "text": adf_text(c.get("body")).strip(),
            }
            for c in comments
        ],
    }


async def add_comment(access: HttpAccess, key: str, text: str) -> dict[str, Any]:
    paragraphs = [
        {"type": "paragraph", "content": [{"type": "text", "text": line}]}
        for line in text.split("\n")
        if line
    ]
    body = {"body": {"type": "doc", "version": 1, "content": paragraphs}}
    data = await _call(access, "POST", f"rest/api/3/issue/{quote(key)}/comment", json=body)
    return {"comment_id": data.get("id"), "created": data.get("created")}


async def check(access: HttpAccess) -> None:
    await _call(access, "GET", "rest/api/3/myself")

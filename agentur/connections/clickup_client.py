"""ClickUp API v2 (documented wire format): tasks of a list by page (`page`, `last_page`), one
task, a comment on a task. Error bodies (`{"err": "...", "ECODE": "..."}`) become one message."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from agentur.connections.http_access import HttpAccess, call_json


def _describe(data: dict[str, Any]) -> str:
    return f"{data['err']} ({data.get('ECODE', 'no code')})" if "err" in data else ""


async def _call(access: HttpAccess, method: str, path: str, **options: Any) -> Any:
    return await call_json(access, "ClickUp", _describe, method, path, **options)


def _task(task: dict[str, Any], *, with_text: bool = False) -> dict[str, Any]:
    data = {
        "id": task.get("id"),
        "name": task.get("name"),
        "status": (task.get("status") or {}).get("status"),
        "assignees": [a.get("username") for a in task.get("assignees") or []],
        "due_date": task.get("due_date"),
        "url": task.get("url"),
    }
    if with_text:
        data["description"] = task.get("text_content") or task.get("description") or ""
    return data


async def list_tasks(
    access: HttpAccess, list_id: str, page: int, include_closed: bool
) -> dict[str, Any]:
    params = {"page": str(page), "include_closed": "true" if include_closed else "false"}
    data = await _call(access, "GET", f"list/{quote(list_id)}/task", params=params)
    last = bool(data.get("last_page", True))
    return {
        "tasks": [_task(task) for task in data.get("tasks") or []],
        "page": page,
        "next_page": None if last else page + 1,
    }


async def get_task(access: HttpAccess, task_id: str) -> dict[str, Any]:
    return _task(await _call(access, "GET", f"task/{quote(task_id)}"), with_text=True)


async def add_comment(access: HttpAccess, task_id: str, text: str) -> dict[str, Any]:
    body = {"comment_text": text, "notify_all": False}
    data = await _call(access, "POST", f"task/{quote(task_id)}/comment", json=body)
    return {"comment_id": data.get("id"), "date": data.get("date")}


async def check(access: HttpAccess) -> None:
    await _call(access, "GET", "user")

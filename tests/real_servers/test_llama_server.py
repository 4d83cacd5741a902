"""agentur against a real llama-server and a real small model (Qwen2.5-Coder-0.5B): every tool
schema any toolbox can offer is accepted (no HTTP 400), and one agent task and one visitor
question run end to end through the HTTP API, asserting what happened — the file exists with
its content, the answer carries the fact and its source — not the model's wording. Slow: a few
minutes of CPU, so CI runs only these essentials; `bench/real_model.py` runs all the tasks."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from agentur.agent.tool_round import tool_definition
from agentur.tools.registry import ToolRegistry
from agentur.tools.toolboxes import ToolboxEnvironment, ToolboxState, request_toolbox_tool
from bench.real_model import agent_tasks, running_bench, visitor_tasks

pytestmark = pytest.mark.slow

AGENT_TASKS = ("agent: write a file",)
VISITOR_QUESTIONS = ("visitor: fact in a document",)
MAX_ROUNDS = 4  # the task needs two; a run that wanders ends within minutes, not tens of them
CALL_SECONDS = 300.0


def _apply_template(llama_server: str, wire: list[dict]) -> httpx.Response:
    # /apply-template runs what a chat request with tools runs first — the chat template and
    # the tool-call parser and grammar built from every schema ("Unable to generate parser for
    # this template …" when one fails) — without reading a prompt: every toolbox at once.
    root = llama_server.removesuffix("/v1")
    body = {"messages": [{"role": "user", "content": "Hi"}], "tools": wire}
    return httpx.post(f"{root}/apply-template", json=body, timeout=120)


def test_every_toolbox_schema_is_accepted(llama_server: str) -> None:
    tools = list(ToolRegistry.discover().all())
    meta = request_toolbox_tool(ToolboxState.initial(ToolboxEnvironment(), []))
    assert meta is not None
    wire = [
        {"type": "function", "function": {"name": d.name, "description": d.description,
                                          "parameters": d.parameters}}
        for d in (tool_definition(tool) for tool in [*tools, meta])
    ]  # fmt: skip
    reply = _apply_template(llama_server, wire)
    assert reply.status_code == 200, reply.text[:500]
    assert all(f'"{tool["function"]["name"]}"' in reply.json()["prompt"] for tool in wire)
    # The check can fail: a schema the converter cannot compile is refused.
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    refused = _apply_template(
        llama_server, [{"type": "function", "function": {"name": "t", "parameters": broken}}]
    )
    assert refused.status_code == 400 and "parser" in refused.text


async def test_agent_tasks_and_visitor_questions_end_to_end(
    llama_server: str, tmp_path: Path
) -> None:
    async with running_bench(llama_server, None, tmp_path, call_seconds=CALL_SECONDS) as bench:
        bench.max_rounds = MAX_ROUNDS
        tasks = dict(agent_tasks(bench) + await visitor_tasks(bench))
        for name in (*AGENT_TASKS, *VISITOR_QUESTIONS):
            await bench.measure(name, tasks[name])
    failed = [f"{r.name}: {r.note}" for r in bench.results if not r.ok]
    assert failed == []
    assert sum(r.usage.http_400 for r in bench.results) == 0

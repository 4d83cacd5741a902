"""agentur against a real llama-server and a real small model (Qwen2.5-Coder-0.5B): every tool
schema any toolbox can offer is accepted (no HTTP 400), and one agent task and one visitor
question run end to end through the HTTP API, asserting what happened — the model's tool calls
reach the tools, a run says "completed" only when the file exists with its content, the answer
carries the fact and its source — not the model's wording. Slow: minutes of CPU, so CI runs
only these essentials; `bench/real_model.py` runs all the tasks and counts successes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from agentur.agent.tool_round import tool_definition
from agentur.tools.registry import ToolRegistry
from agentur.tools.toolboxes import ToolboxEnvironment, ToolboxState, request_toolbox_tool
from bench.real_model_harness import running_bench
from bench.real_model_tasks import agent, file_text, visitor_tasks
from tests.real_servers.llama_server import CONTEXT_TOKENS

pytestmark = pytest.mark.slow

TEXT = "Meeting moved to Friday."
VISITOR_QUESTION = "visitor: fact in a document"
MAX_ROUNDS = 2  # the task needs two (write, then answer); CI time allows no more on a CPU
# The server's context, and a bound on each answer: at temperature 0 a small model may repeat
# itself until the output limit (4,096 tokens by default, many minutes on a CPU).
LIMITS = {"context_window": CONTEXT_TOKENS, "max_output_tokens": 512}
CALL_SECONDS = 600.0  # a small model may run on to its output limit at a few tokens/s


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


async def test_an_agent_run_and_a_visitor_question_end_to_end(
    llama_server: str, tmp_path: Path
) -> None:
    async with running_bench(llama_server, None, tmp_path, CALL_SECONDS, LIMITS) as bench:
        # Greedy decoding: the small model makes the same choices on every run.
        bench.max_rounds, bench.temperature = MAX_ROUNDS, 0.0
        run = await agent(bench, f"Create a file named summary.txt with exactly this text: {TEXT}")
        traced = await bench.client.get(f"/v1/agent/runs/{run['run_id']}", headers=bench.headers)
        written = await file_text(bench, "summary.txt")
        agent_http_400 = bench.usage.http_400
        questions = dict(await visitor_tasks(bench))
        await bench.measure(VISITOR_QUESTION, questions[VISITOR_QUESTION])
    print(f"agent: {run['status']}/{run['rounds']}r, summary.txt {written!r}: {run['final_text']}")
    # No request the server refused (the server's words, if any, in the assertion message).
    assert agent_http_400 == 0
    visitor = bench.results[0].usage
    assert visitor.http_400 == 0, visitor.refusals
    # The model's tool calls — native, or written as text and recovered — reached the tools.
    entries = traced.raise_for_status().json()["entries"]
    assert [e for e in entries if e["kind"] == "tool_call"], entries
    # The outcome matches the workspace: "completed" only with the file written as asked;
    # otherwise the run ends with its reason. (The 0.5B model itself may not manage the
    # task: bench/real_model.py measures how often it does.)
    if run["status"] == "completed":
        assert written is not None and TEXT in written
    else:
        assert run["status"] in {"failed", "max_rounds_reached"} and run["final_text"].strip()
    # The visitor gets the fact from the document, with the document as its source.
    assert bench.results[0].ok, bench.results[0].note

"""Agentur end to end against a real model behind any OpenAI-compatible server.

A fixed set of agent tasks (list and read a file, write a file, answer from a file, refuse to
invent, answer a German question in German, copy a file named instead of its id, write a file
from a document) and visitor questions (FAQ, paraphrase, fact only in a document, out of scope,
person request, de/fr/it/en) run in process through the HTTP API (a fresh SQLite data dir, files
uploaded like a user would). Per task it prints success, model calls, prompt and cached
tokens, the first call's prompt tokens and seconds, HTTP 400 answers and wall time; then the
totals per group and the load average.

    python bench/real_model.py http://127.0.0.1:8080/v1 [--model NAME] [--only agent|visitor|TEXT]
        [--temperature T]

Not part of CI (it needs a running model server). Success checks are deliberately simple
string checks on the answer, the decision path and the workspace, stated per task below.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

# Run as a script, the bench's own modules are found as `bench.…` from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_model_harness import running_bench
from bench.real_model_tasks import agent_tasks, visitor_tasks


async def main(
    base_url: str,
    model: str | None,
    only: str | None,
    data_dir: Path,
    call_seconds: float = 900.0,
    temperature: float | None = None,
) -> None:
    async with running_bench(base_url, model, data_dir, call_seconds) as bench:
        bench.temperature = temperature
        models = [m.id for m in bench.runtime.ai.models()]
        sampling = (
            "agentur's default temperature (AGENTUR_AGENT_TEMPERATURE)"
            if temperature is None
            else f"temperature {temperature}"
        )
        print(f"model(s): {', '.join(models)}   agent runs: {sampling}")
        print(f"load average: {os.getloadavg()}")
        print(
            f"     {'task':<26} {'calls':>3} {'prompt':>8} {'cached':>8} {'first':>6} "
            f"{'1st s':>7} {'400':>3} {'time':>9}  answer"
        )
        tasks = agent_tasks(bench) + await visitor_tasks(bench)
        tasks = [(name, task) for name, task in tasks if only is None or only in name]
        for name, task in tasks:
            await bench.measure(name, task)
    ok = sum(r.ok for r in bench.results)
    prompt = sum(r.usage.prompt for r in bench.results)
    cached = sum(r.usage.cached for r in bench.results)
    seconds = sum(r.seconds for r in bench.results)
    http_400 = sum(r.usage.http_400 for r in bench.results)
    firsts = [r.usage for r in bench.results if r.name.startswith("agent") and r.usage.calls]
    first = (
        f"agent first round: prompt {max(u.first_prompt for u in firsts)} tokens at most, "
        f"{sum(u.first_seconds for u in firsts) / len(firsts):.0f} s on average; "
        if firsts
        else ""
    )
    for result in bench.results:
        for refusal in result.usage.refusals:
            print(f"HTTP 400 in {result.name}: {refusal}")
    for group in ("agent", "visitor"):
        done = [r for r in bench.results if r.name.startswith(group)]
        if done:
            print(f"{group}: {sum(r.ok for r in done)}/{len(done)}")
    print(
        f"\n{ok}/{len(bench.results)} tasks succeeded; HTTP 400: {http_400}; {first}"
        f"prompt tokens {prompt}, cached {cached}; {seconds:.0f} s in total; "
        f"load average now {os.getloadavg()}"
    )


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "base_url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1"
    )
    parser.add_argument("--model", help="model name (default: the server's GET /models)")
    parser.add_argument(
        "--only", help="run the tasks whose name contains this, e.g. agent, visitor, 'from a file'"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds a model call may take (900)"
    )
    parser.add_argument(
        "--temperature",
        type=float,
        help="sampling temperature of each agent run (default: agentur's, "
        "AGENTUR_AGENT_TEMPERATURE)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep agentur's data (database, traces) in this folder to inspect the runs after",
    )
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse()
    with tempfile.TemporaryDirectory(prefix="agentur-real-model-") as directory_name:
        data_dir = arguments.data_dir or Path(directory_name)
        data_dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(
            main(
                arguments.base_url,
                arguments.model,
                arguments.only,
                data_dir,
                arguments.timeout,
                arguments.temperature,
            )
        )

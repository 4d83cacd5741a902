"""What watching a streamed reply for loops costs (prints figures; asserts nothing).

    python bench/loop_watch.py [--window 1024] [--runs 5]

Feeds texts to `agentur.ai.repeated_output.RepeatedOutput` in 4-character pieces (about one
token each), as the gateway does with every streamed reply: one long JSON line (a tool call
writing a 270,000-character file), the README (many short lines), and a looping reply. Prints
the best of `--runs` per text: the whole feed, the cost per piece, and whether it was stopped.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agentur.ai.repeated_output import RepeatedOutput

PIECE = 4


def _texts() -> dict[str, str]:
    words = " ".join(f"w{n}" for n in range(40_000))
    line = json.dumps({"name": "list_files", "arguments": {"search": "Alpenblick"}}) + "\n"
    return {
        "one JSON line (tool arguments)": json.dumps({"name": "a.txt", "content": words}),
        "README.md (short lines)": (Path(__file__).parents[1] / "README.md").read_text("utf-8"),
        "a call written as text, 2,000 times": "Reading the notes.\n" + line * 2_000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=1_024)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for label, text in _texts().items():
        best, fed, watched = float("inf"), 0, RepeatedOutput(args.window)
        for _ in range(args.runs):
            watched, started = RepeatedOutput(args.window), time.perf_counter()
            for fed in range(0, len(text), PIECE):
                if watched.feed(text[fed : fed + PIECE]):
                    break
            best = min(best, time.perf_counter() - started)
        pieces = fed // PIECE + 1
        print(
            f"{label}: {len(text):,} chars, {pieces:,} pieces fed in {best * 1000:.1f} ms "
            f"({best / pieces * 1e6:.2f} µs per piece); stopped: {watched.looping}"
            + (f" after {len(watched.text):,} chars, {len(watched.kept()):,} kept"
               if watched.looping else "")
        )  # fmt: skip


if __name__ == "__main__":
    main()

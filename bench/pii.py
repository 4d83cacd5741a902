"""Precision and recall of the free-text PII recognizers (person names, street + number,
postcode + locality, birth dates) on the labelled corpus in tests/ai/neutralization/pii_eval.

    python bench/pii.py [--part dev|held_out|both] [--errors]

A gold value counts as found when a finding of the same type covers all of it; a finding
counts as correct when it overlaps a gold value of its type and adds at most a few characters
around it. Every sentence is also neutralized and re-identified: the round trip must restore
it exactly. The held-out part was not used while the rules were written: report its figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.ai.neutralization.neutralizer import Neutralizer  # noqa: E402
from agentur.ai.neutralization.placeholder_map import PlaceholderMap  # noqa: E402
from tests.ai.neutralization.pii_eval import Sentence, corpus, score  # noqa: E402


def evaluate(sentences: list[Sentence], neutralizer: Neutralizer, errors: bool) -> bool:
    scores = score(sentences, neutralizer.find)
    print(f"  {'type':<10} {'gold':>5} {'recall':>7} {'found':>6} {'precision':>9}")
    for kind, result in scores.items():
        print(
            f"  {kind:<10} {result.gold:>5} {result.recall:>7.3f} {result.found:>6} "
            f"{result.precision:>9.3f}"
        )
    if errors:
        for kind, result in scores.items():
            for sentence, gold in result.misses:
                value = sentence.text[gold.start : gold.end]
                print(f"  missed {kind:<9} {value!r} in {sentence.text!r}")
            for sentence, finding in result.wrong:
                value = sentence.text[finding.start : finding.end]
                print(f"  wrong  {kind:<9} {value!r} in {sentence.text!r}")
    restored = 0
    for sentence in sentences:
        mapping = PlaceholderMap()
        restored += mapping.reidentify(neutralizer.neutralize(sentence.text, mapping)) == (
            sentence.text
        )
    print(f"  re-identification restored {restored}/{len(sentences)} sentences exactly")
    return restored == len(sentences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["dev", "held_out", "both"], default="both")
    parser.add_argument("--errors", action="store_true", help="print every miss and false find")
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    neutralizer = Neutralizer()
    parts = ["dev", "held_out"] if args.part == "both" else [args.part]
    ok = True
    for part in parts:
        sentences = corpus(part)
        negatives = sum(1 for s in sentences if not s.gold)
        print(f"\n{part}: {len(sentences)} sentences ({negatives} without personal data)")
        started = time.perf_counter()
        ok &= evaluate(sentences, neutralizer, args.errors)
        elapsed = time.perf_counter() - started
        print(f"  {1000 * elapsed / len(sentences):.2f} ms per sentence (score + round trip)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

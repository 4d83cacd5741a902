"""A worker starts without the libraries only some requests need: a worker restarted behind a
balancer (after a crash or a deploy) takes requests as soon as its imports are done, and on a
loaded machine every second of start-up CPU is several seconds of wall time (a killed worker
took ~145 s to come back at load 20)."""

from __future__ import annotations

import subprocess
import sys

# scikit-learn with SciPy: ~1.8 s of the ~6 s of CPU `agentur.api.app` took to import; only
# the visitor assistant's router uses it, when it trains on an assistant's examples.
DEFERRED = ("sklearn", "scipy")


def test_the_app_and_cli_import_without_scikit_learn() -> None:
    probe = (
        "import sys, agentur.api.app, agentur.cli.main; "
        f"print(','.join(m for m in {DEFERRED!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
    ).stdout.strip()
    assert loaded == "", f"imported at start-up: {loaded}"

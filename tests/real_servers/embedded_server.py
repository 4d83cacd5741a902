"""llama.cpp's own HTTP server, run from the `xllamacpp` wheel (the `real-model` extra), with the
command-line options of `llama-server` that the slow tier uses:

    python tests/real_servers/embedded_server.py -m model.gguf --port 8080 -c 8192 -t 2

The wheel embeds the C++ server of llama.cpp (the same OpenAI-compatible routes, Jinja chat
templates and tool-call parsing as `llama-server --jinja`), built for x86-64 with AVX2 and no
newer instructions, so it runs where a prebuilt `llama-server` built for newer CPUs stops with
SIGILL. The server answers until this process gets SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--model", required=True, help="GGUF file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-c", "--ctx-size", type=int, default=8192, help="context tokens")
    parser.add_argument("-t", "--threads", type=int, default=2)
    parser.add_argument("--parallel", type=int, default=1, help="slots")
    # accepted for the same command line as llama-server: this server always has them so
    parser.add_argument("--jinja", action="store_true", help="(always on)")
    parser.add_argument("--no-webui", action="store_true", help="(always on)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    import xllamacpp

    parent = os.getppid()  # before the model loads, which takes a while
    options = parse(argv)
    params = xllamacpp.CommonParams()
    params.model.path = options.model
    params.hostnames = [options.host]
    params.port = options.port
    params.n_ctx = options.ctx_size
    params.n_parallel = options.parallel
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.use_jinja = True
    params.ui = False
    params.warmup = False  # an empty decode that only costs start-up time on a busy CPU
    server = xllamacpp.Server(params)
    print(f"listening on {server.listening_address}", flush=True)
    # The server runs on its own threads; this thread only waits for the signal to stop, and
    # stops at once (an orderly shutdown would first finish the generation under way). It
    # also stops when the process that started it is gone (a test run killed mid-way).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])

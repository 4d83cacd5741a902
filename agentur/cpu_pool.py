"""Worker processes for CPU-heavy work that holds the GIL: one low-priority process for
background work (indexing), and `WorkerProcess` for other parts that need their own (charts).

Extraction, chunking and the local model's passage embeddings hold a CPU for seconds to minutes;
on the server's event loop (or in its threads, where pure-Python work holds the GIL) they
starve requests. They run here instead: one spawned process (one, because the model uses every
core anyway), started lazily, re-nice'd so the kernel gives the API process and its query
embeddings the CPU first (`AGENTUR_KNOWLEDGE_INDEX_NICE`).

Code that runs background work marks it with `background_work()`; code deep inside (the local
embedding provider) asks `in_background()` to choose between the pool and an in-process thread,
so the provider protocol needs no priority argument. Both live here because the AI gateway and the
knowledge store use them and neither may import the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from functools import partial
from typing import TypeVar

T = TypeVar("T")

_background: ContextVar[bool] = ContextVar("agentur_background_work", default=False)
_offload_nice: ContextVar[int | None] = ContextVar("agentur_offload_nice", default=None)


def _start_worker(nice: int, parent: int) -> None:
    if nice > 0:
        with contextlib.suppress(OSError):  # some sandboxes refuse; then we run at equal priority
            os.nice(nice)
    # A parent killed outright (SIGKILL, OOM) leaves the pool's worker waiting forever: leave too.
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


class WorkerProcess:
    """One worker process, spawned at its first task and re-nice'd to the caller's level."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._nice = 0
        self._guard = threading.Lock()

    def _executor(self, nice: int) -> ProcessPoolExecutor:
        with self._guard:
            if self._pool is None or self._nice != nice:
                if self._pool is not None:
                    self._pool.shutdown(wait=False, cancel_futures=True)
                # spawn, not fork: the parent has threads (aiosqlite, onnxruntime) a fork would
                # copy mid-lock.
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(nice, os.getpid()),
                )
                self._nice = nice
            return self._pool

    async def run(self, nice: int, function: Callable[..., T], *args: object) -> T:
        """`function(*args)` in the worker process (picklable function and arguments)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(nice), partial(function, *args))
        except BrokenProcessPool:  # the worker died (killed, out of memory): one fresh try
            self.shutdown()
            return await loop.run_in_executor(self._executor(nice), partial(function, *args))

    def shutdown(self) -> None:
        with self._guard:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def kill(self) -> None:
        """End the worker now (its task overran its time); the next task starts a fresh one."""
        with self._guard:
            pool, self._pool = self._pool, None
        if pool is not None:
            # concurrent.futures has no public way to kill a busy worker before Python 3.14.
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)


_indexing = WorkerProcess()


async def run_in_pool(nice: int, function: Callable[..., T], *args: object) -> T:
    """`function(*args)` in the background worker process (picklable function and arguments)."""
    return await _indexing.run(nice, function, *args)


def shutdown_pool() -> None:
    _indexing.shutdown()


@contextlib.contextmanager
def background_work(nice: int | None) -> Iterator[None]:
    """Marks background work (indexing). Within it, `offload` runs in the worker process at
    `nice`; with None (the `thread` executor setting) in threads of this process."""
    token = _background.set(True)
    previous = _offload_nice.set(nice)
    try:
        yield
    finally:
        _offload_nice.reset(previous)
        _background.reset(token)


def in_background() -> bool:
    return _background.get()


async def offload(function: Callable[..., T], *args: object) -> T:
    """Run in the worker process within `background_work(nice)`, else in a thread of ours."""
    nice = _offload_nice.get()
    if in_background() and nice is not None:
        return await run_in_pool(nice, function, *args)
    return await asyncio.to_thread(function, *args)

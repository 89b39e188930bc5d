"""A bounded pool of worker threads for the CPU-heavy part of taking in a big request.

Parsing and validating a large JSON body, rendering a long conversation through its chat template, tokenizing
it and compiling a grammar can each take from milliseconds to seconds. On the event loop that time is taken
from every other client (a /health probe, the first byte of another stream); in a worker it is not, except
where the work holds the GIL in one C call (``json.loads`` of a very large string), which is short next to
the rest. Small requests stay on the loop: for them the hop to a thread and back costs more than their
preparation (docs/limits.md has the figures).

The pool is bounded (``--prepare-workers``): more big requests at once wait for a worker instead of each
taking a core from the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class Offload:
    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="prepare")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker thread; its exception, if any, raises here."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def offload_of(scope: Mapping[str, Any]) -> Offload | None:
    """The running server's pool, from the request's lifespan state (None where there is none: test doubles)."""
    services = scope.get("state", {}).get("services")
    pool = getattr(services, "offload", None)
    return pool if isinstance(pool, Offload) else None

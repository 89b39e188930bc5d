"""How many choices are queued for one scheduler, in all and by scheduling class: the count ``--queue-size``
limits and /metrics reports.

A job counts from ``submit`` until it is admitted to a lane, cancelled or failed, whichever comes first; it
leaves the count once (``Job.queued`` says whether it is still in it). ``submit`` and ``cancel`` run on any
thread and admission on the engine thread, so changes hold a lock; reads take no lock and are snapshots.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from superfluid.engine.scheduling.job import QOS_CLASSES, Job


class QueueCount:
    def __init__(self) -> None:
        self.total = 0
        self._by_qos = dict.fromkeys(QOS_CLASSES, 0)
        self._lock = threading.Lock()

    def join(self, jobs: Sequence[Job], limit: int | None) -> bool:
        """Count ``jobs`` in; False (and none counted) when ``limit`` would be passed."""
        with self._lock:
            if limit is not None and self.total + len(jobs) > limit:
                return False
            self.total += len(jobs)
            for job in jobs:
                job.queued = True
                self._by_qos[job.qos] = self._by_qos.get(job.qos, 0) + 1
        return True

    def leave(self, job: Job) -> None:
        """The job no longer counts against the queue limit (once, whoever gets here first)."""
        with self._lock:
            if job.queued:
                job.queued = False
                self.total -= 1
                self._by_qos[job.qos] -= 1

    def by_qos(self) -> dict[str, int]:
        """Choices waiting for a lane, by scheduling class (a copy)."""
        return dict(self._by_qos)

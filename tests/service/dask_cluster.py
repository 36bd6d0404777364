"""A local Dask cluster started as docs/deploy/cluster.md says: ``dask scheduler`` and ``dask
worker`` processes (the console script of the test extra's dask[distributed]), each worker
under its nanny with one thread. For test_dask_cluster.py and the semester drill's
``--dask`` (bench_semester.py).

    with local_cluster(folder, workers=2) as cluster:
        serve(..., "--scheduler", cluster.address)
        cluster.worker_pids()          # each worker's process (not its nanny)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

DASK = Path(sys.executable).parent / "dask"      # the console script of dask[distributed]


@dataclass
class Cluster:
    """A running scheduler's address, a client of it, and its processes."""

    address: str
    client: Any
    processes: list[subprocess.Popen]
    log: Path

    def worker_pids(self) -> dict[str, int]:
        """Each worker's process (not its nanny), by the worker's address."""
        return {address: int(pid) for address, pid in self.client.run(os.getpid).items()}


@contextmanager
def local_cluster(folder: Path, workers: int = 2, threads: int = 1,
                  start_seconds: float = 120.0) -> Iterator[Cluster]:
    """A scheduler on 127.0.0.1 (a free port) and ``workers`` workers of ``threads``
    threads; all stopped (SIGTERM, then SIGKILL) on leaving."""
    import distributed
    folder.mkdir(parents=True, exist_ok=True)
    found = folder / "scheduler.json"
    log_path = folder / "dask.log"
    log = open(log_path, "ab")
    started = [subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
         "--scheduler-file", str(found)], stdout=log, stderr=log, stdin=subprocess.DEVNULL,
        cwd=folder)]
    client = None
    try:
        deadline = time.monotonic() + start_seconds
        while not (found.exists() and found.stat().st_size):
            if time.monotonic() > deadline or started[0].poll() is not None:
                raise RuntimeError("the Dask scheduler did not start: " + log_path.read_text())
            time.sleep(0.1)
        address = json.loads(found.read_text())["address"]
        for number in range(1, workers + 1):
            started.append(subprocess.Popen(
                [str(DASK), "worker", address, "--nthreads", str(threads),
                 "--name", f"w{number}", "--host", "127.0.0.1", "--no-dashboard",
                 "--local-directory", str(folder)],
                stdout=log, stderr=log, stdin=subprocess.DEVNULL, cwd=folder))
        client = distributed.Client(address, set_as_default=False, timeout=start_seconds)
        client.wait_for_workers(workers, timeout=start_seconds)
        yield Cluster(address, client, started, log_path)
    finally:
        if client is not None:
            client.close()
        for process in reversed(started):
            process.send_signal(signal.SIGTERM)
        for process in reversed(started):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()

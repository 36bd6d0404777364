"""Which CPU a sandbox's processes run on: one, the same for the reference and the student.

On a virtual machine the CPUs do not run at the same speed (another guest may share a
core with one of them), and the speed of each changes from minute to minute. A limit is a
ratio of two CPU times: the reference's and the student's. Measured on two different CPUs,
that ratio moves with whichever CPU each process happened to land on (a correct-but-slow
file scored differently one run in twenty). Measured on the same CPU, both times move
together and the ratio stays put. So every worker of a sandbox (the student's, its
restarts, the reference worker) is pinned to one CPU, chosen when the sandbox starts.

``TTT_GRADER_CPU`` chooses it (``batch`` gives each of its ``--jobs`` slots its own, so
two grading runs do not share a CPU while another is idle); otherwise the CPU the grader
runs on now.

A grade whose student's code waits instead of computing (a call stopped after sleeping past
its limit: ``time.sleep``, a lock) leaves its CPU idle for most of its run. :func:`lend`
says so to whoever started the grade, through the file ``TTT_GRADER_LEND`` names: ``batch``
then starts the next grade on that CPU (``grader.classroom.run.LocalRunner``). The verdicts
do not change: limits are CPU time, and a call waiting for a CPU is not charged for it.

>>> pick_cpu({0}) is None          # one CPU: nothing to choose
True
>>> pick_cpu({0, 1}, {"TTT_GRADER_CPU": "3"})   # slot 3 of 2 CPUs
1
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Mapping

CPU_VARIABLE = "TTT_GRADER_CPU"
LEND_VARIABLE = "TTT_GRADER_LEND"   # a file to create when the grade's CPU is free to lend


def allowed_cpus() -> set[int]:
    """The CPUs this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return set()


def pick_cpu(allowed: set[int] | None = None,
             environ: Mapping[str, str] = os.environ) -> int | None:
    """The CPU to pin a sandbox's workers to, or None when there is no choice to make."""
    allowed = allowed_cpus() if allowed is None else allowed
    if len(allowed) < 2:
        return None
    ordered = sorted(allowed)
    slot = environ.get(CPU_VARIABLE, "")
    if slot.isdigit():
        return ordered[int(slot) % len(ordered)]
    now = current_cpu()
    return now if now in allowed else ordered[0]


def lend(environ: Mapping[str, str] = os.environ) -> bool:
    """Say that this grade's CPU is free: its student's code waits rather than computes.
    Creates the file ``TTT_GRADER_LEND`` names (once); whether it did so now.

    >>> lend({})   # nobody to lend it to
    False
    """
    path = environ.get(LEND_VARIABLE, "")
    if not path:
        return False
    try:
        with open(path, "x"):
            return True
    except OSError:   # lent already, or the runner is gone: nothing to do
        return False


def current_cpu() -> int | None:
    """The CPU this process last ran on (``/proc/self/stat``'s processor field), or None."""
    try:
        with open("/proc/self/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
        return int(fields[36])   # field 39 of proc(5); the first two precede the ")"
    except (OSError, ValueError, IndexError):
        return None


def pin(pid: int, cpu: int | None) -> bool:
    """Keep process ``pid`` (and the processes it starts from now on) on ``cpu``; say
    whether it worked (a process that has gone, or a system without affinity: no harm)."""
    if cpu is None:
        return False
    try:
        os.sched_setaffinity(pid, {cpu})
    except (AttributeError, OSError):
        return False
    return True


@contextmanager
def beside(cpu: int | None) -> Iterator[None]:
    """Run the calling thread on ``cpu`` (the sandbox's) for the block, then as before.

    A call is a round trip: the grader writes, the worker computes and answers, the grader
    reads. On the worker's own CPU each wake-up stays on that CPU; across two CPUs each
    one is an interrupt to the other CPU, which on a virtual machine costs tens of
    microseconds, a third of a round trip, and part of it lands on the worker's CPU time.
    The two never compute at once (the grader waits for each answer), so they do not
    compete for the CPU.

    >>> with beside(None):   # no CPU chosen: nothing changes
    ...     pass
    """
    before = allowed_cpus()
    if cpu not in before:   # None, or a CPU we may not use (or no affinity: not Linux)
        yield
        return
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)

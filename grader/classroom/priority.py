"""The CPU priority of grading beside a web process: the page answers first.

``grader serve`` grades in the machine that answers the students' pages. At the same
priority, a rush's grading runs take the web process's share of the CPU and every poll
waits. So each grading run the server starts runs at a lower priority: ``nice`` 10 (a
weight of 110 against the web process's 1024: the web process gets about nine tenths of a
core it wants while a grade wants it too) and, where the system allows it, the
``SCHED_BATCH`` policy (the scheduler does not preempt the web process to wake a grade).
Both are inherited by everything the grade starts: its sandbox's workers, which time the
reference and run the student's calls, so both are measured at the same priority.

A verdict does not depend on it: every limit is the student's CPU time against the
reference's, measured in the same worker on the same CPU (``grader.sandbox.cpu``), and CPU
time is not charged while a process waits for a CPU. A lower priority changes when a grade
finishes, not what it says.

The wish travels in the grade's environment (``TTT_GRADER_NICE``), so that a warm server
(``grader.classroom.warm``) started for such grades runs at that priority from its start
and a server started for ``batch`` (no wish) is another one. The same variable in ``grader
serve``'s own environment changes what it asks for (``TTT_GRADER_NICE=0``: the page's own).

>>> wanted({NICE_VARIABLE: "10"}), wanted({}), wanted({NICE_VARIABLE: "x"})
(10, 0, 0)
>>> priority_environment(0), priority_environment(10)
({}, {'TTT_GRADER_NICE': '10'})
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Mapping

from grader.sandbox.inside.confine import keep_niceness

NICE_VARIABLE = "TTT_GRADER_NICE"
GRADING_NICE = 10            # what grader serve asks for its grading runs
MAX_NICE = 19


@dataclass(frozen=True)
class Priority:
    """What lowering a process's priority gave: its nice value and whether its policy is
    SCHED_BATCH.

    >>> Priority(10, True).describe()
    'nice 10, SCHED_BATCH'
    >>> Priority(10, False).describe()
    'nice 10'
    """

    nice: int
    batch: bool

    def describe(self) -> str:
        return f"nice {self.nice}" + (", SCHED_BATCH" if self.batch else "")


def wanted(environ: Mapping[str, str]) -> int:
    """The nice value a grade with ``environ`` asks for (0: none, or not a number)."""
    text = environ.get(NICE_VARIABLE, "")
    if not text.isdigit():
        return 0
    return min(int(text), MAX_NICE)


def serving_nice(environ: Mapping[str, str] = os.environ) -> int:
    """The priority ``grader serve`` grades at: GRADING_NICE, unless its own environment
    says otherwise (``TTT_GRADER_NICE=0``: the page's own priority, on a machine that only
    grades, say).

    >>> serving_nice({}), serving_nice({NICE_VARIABLE: "0"}), serving_nice({NICE_VARIABLE: "5"})
    (10, 0, 5)
    """
    return wanted(environ) if NICE_VARIABLE in environ else GRADING_NICE


def priority_environment(nice: int) -> dict[str, str]:
    """The environment variables that ask a grade for ``nice`` (none for 0)."""
    return {NICE_VARIABLE: str(min(nice, MAX_NICE))} if nice > 0 else {}


def lower(nice: int) -> Priority:
    """Lower the calling process (on Linux: the calling thread) to ``nice`` and, where the
    system allows, SCHED_BATCH; never raise it. What it is now. Safe in a ``preexec_fn``.

    >>> lower(0).nice >= 0
    True
    """
    current = _nice()
    if nice > current:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, min(nice, MAX_NICE))
        except (AttributeError, OSError):
            pass
    batch = False
    if nice > 0 and hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_BATCH"):
        try:
            if os.sched_getscheduler(0) in (os.SCHED_OTHER, os.SCHED_BATCH):
                os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            batch = os.sched_getscheduler(0) == os.SCHED_BATCH
        except OSError:
            batch = False
    return Priority(_nice(), batch)


def lower_child(nice: int) -> Priority:
    """``lower`` in a new process that leads a session of its own (a cold grade, a warm
    server: a ``preexec_fn`` after ``start_new_session``), and its session with it. Never in
    a thread of the web process: its session is the page's.

    Linux's autogroup scheduling shares the CPU between sessions first, and a new session
    starts at nice 0: a grade at nice 10 in a session of its own would take as large a
    share as the web process."""
    found = lower(nice)
    keep_niceness()          # the sandbox's worker does the same in its own sessions
    return found


def lower_from(environ: Mapping[str, str]) -> None:
    """``lower_child`` to what ``environ`` asks for (nothing when it asks for nothing): a
    warm server's process calls it first."""
    nice = wanted(environ)
    if nice:
        lower_child(nice)


def probe(nice: int = GRADING_NICE) -> Priority:
    """What ``lower(nice)`` gives a grade on this system, tried in a thread of its own (on
    Linux, nice and the policy are a thread's), so the caller keeps its own priority.

    >>> probe(10).nice in (0, 10)      # 0 where the system has no priorities
    True
    """
    found: list[Priority] = []
    thread = threading.Thread(target=lambda: found.append(lower(nice)), name="probe-priority")
    thread.start()
    thread.join()
    return found[0] if found else Priority(_nice(), False)


def describe(nice: int = GRADING_NICE) -> str:
    """The start line's clause: the priority the server's grading runs at.

    >>> describe(0)
    'grading at the same CPU priority as the page'
    >>> describe(10).startswith("grading at a lower CPU priority than the page (nice ")
    True
    """
    if nice <= 0:
        return "grading at the same CPU priority as the page"
    got = probe(nice)
    if got.nice <= _nice() and not got.batch:
        return "grading at the same CPU priority as the page (this system cannot lower it)"
    return f"grading at a lower CPU priority than the page ({got.describe()})"


def _nice() -> int:
    try:
        return os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):
        return 0

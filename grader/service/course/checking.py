"""Checking a hand-in's text away from the web process, which never compiles a student's
text: compiling can cost seconds of CPU (a 256 KiB f-string of ``{a}{a}...`` takes some
13 s to parse) and would stall every page.

So the page hands the bytes to a short-lived child, ``python -m
grader.service.course.hand_in_text``, which sets its own CPU, memory and file limits before
it reads them, decodes and compiles them as the grader does (never runs them) and answers
the problem the grader's report would name (a bad coding line, a syntax error) or the names
the file defines at its top level. The child is killed after a wall timeout.

:class:`Checker` is the web process's side: at most one check per student at a time, a few
at a time in all (the others wait their turn without holding a thread), and a count of each
student's refused hand-ins (``Checker.refused``: the caller says which were refused), so
that a student whose files keep being refused waits before the next is checked.

    checker = Checker()
    checked = await checker.check("ada", "mm_player.py", data)     # Checked(...)
    checked.defined            # frozenset({'mm_move', 'move_wrapper', ...})

>>> Checker().limits.cpu_seconds
2
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.service.course.hand_in_text import MEMORY_ERROR_EXIT

HOME = Path(__file__).resolve().parents[3]      # where ``python -m grader...`` runs
CHILD = "grader.service.course.hand_in_text"


@dataclass(frozen=True)
class CheckLimits:
    """What one check may use, and how many refused hand-ins a student may make.

    ``cpu_seconds``: CPU time of the child (a course's file compiles in milliseconds; a
    256 KiB file of ordinary code in well under a second). ``memory_bytes``: its address
    space. ``wall_seconds``: a backstop on the wall clock (the child waits for nothing).
    ``at_once``: checks running at the same time in all (a core is always left to the
    pages: one at a time on two cores; a check takes about 0.1 s of CPU, most of it
    Python's start). ``refused`` hand-ins a student may
    make in ``refused_window`` seconds before the page takes no file from them for a while;
    one stopped at a limit counts as ``refused`` of them (no course's file comes near it).

    >>> CheckLimits().cpu_seconds
    2
    """

    cpu_seconds: int = 2
    memory_bytes: int = 512 * 1024 * 1024
    wall_seconds: float = 60.0
    at_once: int = max(1, (os.cpu_count() or 1) - 1)
    refused: int = 20
    refused_window: float = 600.0


@dataclass(frozen=True)
class Checked:
    """What the child found: the names the file defines at its top level (empty when it
    cannot be read), ``problem`` (what the grader's report would say of a file it cannot
    read: ``kind`` "encoding" or "syntax", and ``line``, ``text``, ``message``), or
    ``limit`` ("cpu", "memory" or "time") when checking it went past the limits.

    >>> Checked(frozenset({"mm_move"})).readable
    True
    """

    defined: frozenset[str] = frozenset()
    problem: dict[str, Any] | None = None
    limit: str | None = None

    @property
    def readable(self) -> bool:
        return self.problem is None and self.limit is None


class CheckerBusy(Exception):
    """No check for this student now: ``why`` is "checking" (one of theirs is being checked)
    or "refused" (``count`` refused hand-ins in the window); ``retry_after`` in seconds."""

    def __init__(self, why: str, retry_after: float, count: int = 0) -> None:
        super().__init__(f"{why}: try again in {retry_after:.0f} s")
        self.why = why
        self.retry_after = retry_after
        self.count = count


class CheckFailed(Exception):
    """The checker itself failed (not the file: a broken install, say); the message is for
    the log."""


@dataclass
class Checker:
    """The web process's checks of hand-ins (one per application; no module state)."""

    limits: CheckLimits = field(default_factory=CheckLimits)
    _checking: set[str] = field(default_factory=set)
    _refused: dict[str, deque[float]] = field(default_factory=dict)
    _slots: asyncio.Semaphore | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    def refused(self, student: str, checked: Checked | None = None) -> None:
        """Count a refused hand-in of ``student`` (one that was checked: ``checked``, what
        the check found); one stopped at a limit counts as the whole allowance."""
        count = self.limits.refused if checked is not None and checked.limit else 1
        self._refused.setdefault(student, deque()).extend([time.monotonic()] * count)

    def _recent(self, student: str) -> deque[float]:
        """The times of ``student``'s refused hand-ins in the window, oldest first."""
        times = self._refused.get(student, deque())
        since = time.monotonic() - self.limits.refused_window
        while times and times[0] <= since:
            times.popleft()
        if not times:
            self._refused.pop(student, None)      # the table holds only those who wait
        return times

    def admit(self, student: str) -> None:
        """CheckerBusy when no file of ``student`` would be checked now (the page says so
        before it reads their upload)."""
        if student in self._checking:
            raise CheckerBusy("checking", 5)
        recent = self._recent(student)
        if len(recent) >= self.limits.refused:
            wait = recent[len(recent) - self.limits.refused] + self.limits.refused_window \
                - time.monotonic()
            raise CheckerBusy("refused", max(1.0, wait), len(recent))

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:   # one per event loop
            self._slots, self._loop = asyncio.Semaphore(self.limits.at_once), loop
        return self._slots

    async def check(self, student: str, filename: str, data: bytes) -> Checked:
        """Check ``data`` (a file called ``filename``) for ``student``. CheckerBusy when one
        of theirs is being checked or they were refused too often lately; CheckFailed when
        the checker could not run."""
        self.admit(student)
        self._checking.add(student)
        try:
            async with self._semaphore():
                return await run_child(data, filename, self.limits)
        finally:
            self._checking.discard(student)


async def run_child(data: bytes, filename: str, limits: CheckLimits) -> Checked:
    """One check in a child process (see the module's docstring)."""
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", CHILD, str(limits.cpu_seconds), str(limits.memory_bytes),
            filename, cwd=HOME, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    except OSError as problem:             # no process to be had (EAGAIN, say)
        raise CheckFailed(f"the hand-in checker could not start: {problem}") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(data), limits.wall_seconds)
    except asyncio.TimeoutError:
        return Checked(limit="time")
    finally:
        if process.returncode is None:     # past the wall timeout, or the request cancelled
            process.kill()
            await process.wait()
    code = process.returncode
    if code in (-signal.SIGXCPU, -signal.SIGKILL):        # its soft, then hard CPU limit
        return Checked(limit="cpu")
    if code == MEMORY_ERROR_EXIT or (code != 0 and b"MemoryError" in err):
        return Checked(limit="memory")
    try:
        answer = json.loads(out)
    except ValueError:
        answer = None
    if code != 0 or not isinstance(answer, dict):
        raise CheckFailed(f"the hand-in checker exited with {code}: "
                          f"{err.decode('utf-8', 'replace')[-2000:]}")
    if answer.get("problem") is not None:
        return Checked(problem=answer["problem"])
    return Checked(frozenset(str(name) for name in answer.get("defined", ())))

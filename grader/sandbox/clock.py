"""Timing a call from outside the student's process, and deciding when it must stop.

The kernel's accounting of the worker (every thread, and the children it reaped), read
from /proc: nothing the student patches inside its process changes it.

>>> ProcessClock(os.getpid()).cpu() > 0
True
"""

from __future__ import annotations

import os
import time
import weakref

from grader.sandbox.family import Family
from grader.sandbox.limits import Limits


class Late(Exception):
    """No answer in time: out of CPU time, or ``waited`` past the limit without computing."""

    def __init__(self, waited: bool = False, backstop: bool = False) -> None:
        super().__init__()
        self.waited = waited
        self.backstop = backstop

    def describe(self, function: str, limit: float, cpu: float, active: float) -> str:
        if self.backstop:
            return (f"{function} did not answer within the wall-clock backstop of its "
                    f"{limit:.2f} s limit and was stopped")
        if self.waited:
            return (f"{function} did not answer within its limit of {limit:.2f} s: it was "
                    f"stopped after {active:.2f} s in which it computed for only {cpu:.2f} s "
                    "(the rest it spent sleeping or waiting)")
        return f"{function} used more than its limit of {limit:.2f} s of CPU time and was stopped"


class ProcessClock:
    """The CPU time of one process as the kernel accounts it, read from /proc.

    Every live thread's exact run time (``schedstat``) or the process's own total (its dead
    threads included, in clock ticks), whichever is larger, plus the children it reaped;
    and how long its main thread has waited for a CPU. Nothing inside the process can
    change either. With a ``family`` (``grader.sandbox.family``), the CPU time of every
    process the worker started is counted too. Returns 0.0 where /proc cannot be read (the
    process has gone).

    >>> clock = ProcessClock(os.getpid())
    >>> clock.cpu() > 0
    True
    """

    _TICK = 1 / os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        # Descriptors of /proc/PID/stat and schedstat, kept open and read again from their
        # start: a third of the cost of opening them (each call reads both twice). They
        # stay bound to this process: once it has gone, they read nothing, whoever gets
        # its pid next.
        self._files: dict[str, int] = {}
        self._closed = False
        # The reading taken as the process answered its last call (Watch.finish), while
        # nothing else has been asked of it since (Worker.send forgets it): it idles from
        # there to the next call, which may start from it instead of reading /proc again.
        self.at_answer: tuple[float, float] | None = None
        self.family: Family | None = None
        self._finalizer = weakref.finalize(self, _close_files, self._files)
        self.readable = self.read() is not None

    def close(self) -> None:
        """Close the descriptors kept open; from then on it reads nothing (opening the pid
        again could read whatever process has it by now)."""
        self._closed = True
        _close_files(self._files)

    def _read(self, name: str) -> bytes:
        if self._closed:
            raise OSError(f"the clock of process {self.pid} is closed")
        fd = self._files.get(name)
        if fd is None:
            fd = self._files[name] = os.open(f"/proc/{self.pid}/{name}",
                                             os.O_RDONLY | os.O_CLOEXEC)
        return os.pread(fd, 4096, 0)

    def read(self) -> tuple[float, float] | None:
        """(CPU seconds, seconds the main thread waited for a CPU), or None."""
        base = f"/proc/{self.pid}"
        family = self.family
        try:
            if family is not None and family.cgroup is not None:
                # The cgroup counts every thread and process: the main thread's wait alone
                # comes from /proc (its schedstat is the process's own file).
                used = family.cgroup.usage()
                if used is not None:
                    return used, int(self._read("schedstat").split()[1]) / 1e9
            fields = self._read("stat").rpartition(b")")[2].split()
            ticks = int(fields[11]) + int(fields[12])      # utime stime
            reaped = int(fields[13]) + int(fields[14])     # cutime cstime
            if fields[17] == b"1":  # one thread: the process's own schedstat is enough
                ran, delay = self._read("schedstat").split()[:2]
                exact, waited = int(ran), int(delay)
            else:
                exact = waited = 0
                for tid in os.listdir(f"{base}/task"):
                    try:
                        ran, delay = _read_proc(f"{base}/task/{tid}/schedstat").split()[:2]
                    except (OSError, ValueError):
                        continue  # a thread that just ended: its time is in the total
                    exact += int(ran)
                    if tid == str(self.pid):
                        waited = int(delay)
        except (OSError, ValueError, IndexError):
            return None
        cpu = max(exact / 1e9, ticks * self._TICK) + reaped * self._TICK
        if family is not None:
            cpu = family.cpu(cpu)
        return cpu, waited / 1e9

    def cpu(self) -> float:
        reading = self.read()
        return reading[0] if reading is not None else 0.0

    def runnable(self) -> bool:
        """Whether the process's main thread is running or waiting for a CPU now (state R),
        not sleeping or blocked: a wait for a CPU that is going on is not in the counts of
        ``read`` yet (the kernel adds it when the wait ends)."""
        try:
            return self._read("stat").rpartition(b")")[2].split()[0] == b"R"
        except (OSError, IndexError):
            return False


def _close_files(files: dict[str, int]) -> None:
    for fd in files.values():
        try:
            os.close(fd)
        except OSError:
            pass
    files.clear()


def _read_proc(path: str) -> bytes:
    """A small /proc file in one read (cheaper than open())."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


class Watch:
    """Times one call from outside and decides when it must stop."""

    POLL = 0.02  # seconds between two looks at a running call

    def __init__(self, clock: "ProcessClock", limit: float, limits: Limits,
                 interrupted=lambda: False) -> None:
        self.clock = clock
        self.interrupted = interrupted
        self.limit = limit
        self.grace = limits.grace
        self.started = time.monotonic()
        self.deadline = self.started + limits.backstop(limit)
        # From the last answer on the process only idled (or its threads ran: their time is
        # the student's): that reading starts this call, half of a call's /proc reads.
        reading = clock.at_answer or (clock.read() if clock.readable else None)
        self.cpu0, self.wait0 = reading if reading is not None else (0.0, 0.0)
        self.measured = reading is not None
        self.last = (0.0, 0.0)
        self.reading: tuple[float, float] | None = None   # the last raw reading

    def _sample(self) -> tuple[float, float]:
        wall = time.monotonic() - self.started
        reading = self.clock.read() if self.measured else None
        if reading is None:  # no /proc: wall time is all we know
            self.last = (self.last[0], wall)
            return self.last
        self.reading = reading
        cpu, waited = reading
        # Never below 0: a thread that ended since the start reading leaves only the
        # process's total, counted in whole ticks.
        cpu = max(0.0, cpu - self.cpu0)
        active = max(cpu, wall - (waited - self.wait0))
        self.last = (cpu, active)
        return self.last

    def check(self) -> float:
        """Raise Late if the call must stop (KeyboardInterrupt if the run must); else the
        seconds until the next look."""
        if self.interrupted():
            raise KeyboardInterrupt
        cpu, active = self._sample()
        if cpu >= self.limit:
            raise Late()
        if active >= self.limit + self.grace and (
                not self.measured or cpu < self.limit / 2
                or active >= 2 * self.limit + self.grace):
            # Not computing, so no machine load can explain it; without /proc, say nothing.
            # Unless it is waiting for a CPU right now: that wait is not counted yet, so on
            # a busy machine a computing call may look idle. A call that has computed for
            # half its limit is judged by its CPU time alone (up to twice its limit).
            if not (self.measured and self.clock.runnable()):
                raise Late(waited=self.measured and cpu < self.limit * 0.9)
        if time.monotonic() >= self.deadline:
            raise Late(backstop=True)
        return min(self.POLL, max(0.001, self.limit - cpu))

    def finish(self, answered: bool = False) -> tuple[float, float]:
        """The call's CPU and active seconds, read now (the worker is idle again). With
        ``answered`` (the worker answered and lives on) the reading starts the next call."""
        self.reading = None
        sample = self._sample()
        if answered:
            self.clock.at_answer = self.reading
        return sample

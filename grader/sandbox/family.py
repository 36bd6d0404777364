"""Every process a worker started: found, counted, and ended when its call ends.

The worker runs below a process the student's code cannot leave: outside bubblewrap, its
supervisor, a child subreaper (``inside/confine.supervise``); under bubblewrap, the pid
namespace's init. A process the student starts stays below it whatever it does (setsid, a
double fork): an orphan is handed to that process, not to the machine's init. So a
:class:`Family` finds them all by walking down from it, and:

- counts their CPU time with the worker's (``Family.cpu``): from a cgroup v2 of the worker's
  own where one can be had (root, a writable cgroup2 mount; ``TTT_GRADER_NO_CGROUP=1`` turns
  it off), which counts every process that ever ran in it, to the microsecond; otherwise
  from /proc: the living and the dead-but-unreaped (their own time and their reaped
  children's) and what the supervisor reaped;
- ends them (``Family.end_others``) when a call ends, so nothing the student started runs
  between calls, or after the grade (``Family.end_all``).

Without a cgroup, a child whose parent ignores SIGCHLD is reaped by nobody, and its time is
counted only while it lives: the grader looks every few hundredths of a second.

>>> family = Family(os.getpid(), os.getpid(), frozenset({os.getpid()}))
>>> isinstance(family.others(), list)    # every process below this one
True
>>> family.end_others()                  # doctest: +SKIP
False
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from pathlib import Path

NO_CGROUP_VARIABLE = "TTT_GRADER_NO_CGROUP"
_TICK = 1 / os.sysconf("SC_CLK_TCK")
_PREFIX = "ttt-sandbox-"


class Family:
    """The processes below ``top`` (the supervisor, or bubblewrap's init): the worker, and
    whatever the student's code started. ``ours`` are never ended before the worker is."""

    def __init__(self, top: int, worker: int, ours: frozenset[int],
                 cgroup: "Cgroup | None" = None) -> None:
        self.top = top
        self.worker = worker
        self.ours = ours
        self.cgroup = cgroup
        # The top's and the worker's /proc files, kept open (they are read at every call's
        # end): bound to those processes, they read nothing once these have gone.
        self._files: dict[str, int] = {}

    def others(self) -> list[int]:
        """The living processes of the family but ours, parents before children."""
        if self.cgroup is not None:
            return [pid for pid in self.cgroup.pids() if pid not in self.ours]
        found, stack = [], [self.top]
        while stack:
            for child in self._children(stack.pop()):
                if child not in self.ours and state(child) not in ("Z", "X", ""):
                    found.append(child)
                stack.append(child)
        return found

    def _children(self, pid: int) -> list[int]:
        """``children(pid)``; for the top and a worker with one thread, from a file kept
        open (a third of the cost)."""
        if pid not in (self.top, self.worker):
            return children(pid)
        try:
            if pid == self.worker and self._kept(f"/proc/{pid}/stat")[1][17] != b"1":
                return children(pid)      # its other threads may have children too
            return [int(child) for child in self._kept(f"/proc/{pid}/task/{pid}/children")[0]]
        except (OSError, ValueError, IndexError):
            return []

    def _kept(self, path: str) -> tuple[list[bytes], list[bytes]]:
        """A /proc file of the top or the worker, read through a descriptor kept open:
        its words, and (a stat file) its fields after the command name."""
        fd = self._files.get(path)
        if fd is None:
            fd = self._files[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        data = os.pread(fd, 1 << 16, 0)
        return data.split(), data.rpartition(b")")[2].split()

    def cpu(self, worker_cpu: float) -> float:
        """The CPU seconds of the whole family, given the worker's own (its threads and
        its reaped children): that plus every other process's, from /proc (with a cgroup,
        its own count is read instead: ``Cgroup.usage``)."""
        # The top's reaped children first: a process reaped between the two reads is then
        # missed for one look rather than counted twice.
        total = worker_cpu
        if self.top != self.worker:
            try:
                fields = self._kept(f"/proc/{self.top}/stat")[1]
                total += (int(fields[13]) + int(fields[14])) * _TICK   # cutime cstime
            except (OSError, ValueError, IndexError):
                pass
        stack = [self.top]
        while stack:
            for child in self._children(stack.pop()):
                if child != self.worker:
                    own, reaped = times(child)
                    total += own + reaped
                stack.append(child)
        return total

    def end_others(self, patience: float = 2.0) -> bool:
        """SIGKILL every process of the family but ours until none is left (a process may
        fork while it is being killed); then wait for the supervisor to reap them, so that
        their time is where ``cpu`` finds it. Whether there was any."""
        killed: set[int] = set()
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            others = self.others()
            if not others:
                break
            for pid in others:
                _kill(pid)
            killed.update(others)
            time.sleep(0.001)
        if killed and self.cgroup is None:
            while time.monotonic() < deadline and any(
                    state(pid) not in ("", "X") and parent_of(pid) == self.top
                    for pid in killed):
                time.sleep(0.001)
        return bool(killed)

    def end_all(self) -> bool:
        """SIGKILL the family: with a cgroup, everything in it at once; otherwise every
        process below the top, then the worker (the caller kills the top). Whether nothing
        of it is left for sure (the cgroup is empty: no sweep by uid is needed)."""
        if self.cgroup is not None:
            return self.cgroup.kill()
        self.end_others(patience=1.0)
        _kill(self.worker)
        return False

    def close(self) -> None:
        """Close the files kept open; remove the cgroup (its processes must have ended)."""
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()
        if self.cgroup is not None:
            self.cgroup.remove()


class Cgroup:
    """A cgroup v2 below the grader's own, for one worker and whatever it starts: nothing
    inside can leave it (its files are root's), its CPU count includes every process that
    ever ran in it, and one write kills them all."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stat = os.open(path / "cpu.stat", os.O_RDONLY | os.O_CLOEXEC)
        self._procs = os.open(path / "cgroup.procs", os.O_RDONLY | os.O_CLOEXEC)

    @classmethod
    def make(cls) -> "Cgroup | None":
        """A new cgroup, or None where none can be made here (not root, no cgroup v2
        mounted writable, or turned off)."""
        if os.environ.get(NO_CGROUP_VARIABLE, "") not in ("", "0") or os.geteuid() != 0:
            return None
        base = own_cgroup()
        if base is None:
            return None
        path = base / f"{_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
            return cls(path)
        except OSError:
            try:
                path.rmdir()
            except OSError:
                pass
            return None

    def add(self, pid: int) -> bool:
        try:
            with open(self.path / "cgroup.procs", "w") as file:
                file.write(str(pid))
            return True
        except OSError:   # it has ended
            return False

    def usage(self) -> float | None:
        """The CPU seconds of every process that has run in it since it joined."""
        try:
            text = os.pread(self._stat, 4096, 0)
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return None

    def pids(self) -> list[int]:
        try:
            return [int(pid) for pid in os.pread(self._procs, 1 << 16, 0).split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> bool:
        """SIGKILL every process in it (at once through cgroup.kill, Linux 5.14+); whether
        it is empty now."""
        try:
            with open(self.path / "cgroup.kill", "w") as file:
                file.write("1")
        except OSError:
            pass
        deadline = time.monotonic() + 2.0
        while True:
            left = self.pids()
            if not left or time.monotonic() > deadline:
                return not left
            for pid in left:
                _kill(pid)
            time.sleep(0.001)

    def remove(self) -> None:
        for fd in (self._stat, self._procs):
            try:
                os.close(fd)
            except OSError:
                pass
        _remove(self.path)


def _remove(path: Path, patience: float = 1.0) -> bool:
    """rmdir a cgroup, waiting for its last processes to be gone."""
    deadline = time.monotonic() + patience
    while True:
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)


@functools.lru_cache(maxsize=None)
def own_cgroup() -> Path | None:
    """The folder of this process's cgroup in the cgroup v2 hierarchy, if it is mounted and
    writable; cgroups left by a grader that was killed are removed (once per process).

    >>> own_cgroup() is None or own_cgroup().is_dir()
    True
    """
    try:
        with open("/proc/self/cgroup") as file:
            path = next((line.strip()[3:] for line in file if line.startswith("0::")), None)
        with open("/proc/self/mountinfo") as file:
            mounts = [line.split() for line in file]
    except OSError:
        return None
    if path is None:
        return None
    for fields in mounts:
        separator = fields.index("-") if "-" in fields else -1
        if separator < 0 or fields[separator + 1] != "cgroup2":
            continue
        root, point = fields[3], fields[4]
        if root != "/" and not (path + "/").startswith(root.rstrip("/") + "/"):
            continue
        relative = path[len(root.rstrip("/")):] if root != "/" else path
        base = Path(point + relative.rstrip("/"))
        if not (base.is_dir() and os.access(base, os.W_OK)):
            return None
        sweep(base)
        return base
    return None


def sweep(base: Path) -> None:
    """End what graders that were killed left in ``base`` (a student's process that was
    running when its grader died), and remove their cgroups."""
    try:
        names = [entry.name for entry in os.scandir(base) if entry.name.startswith(_PREFIX)]
    except OSError:
        return
    for name in names:
        owner = name[len(_PREFIX):].partition("-")[0]
        if owner.isdigit() and state(int(owner)) == "":
            try:
                with open(base / name / "cgroup.kill", "w") as file:
                    file.write("1")
            except OSError:
                pass
            _remove(base / name, patience=0.2)


def children(pid: int) -> list[int]:
    """The children of ``pid`` (of each of its threads), from /proc.

    >>> isinstance(children(os.getpid()), list)
    True
    """
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as file:
                found += [int(child) for child in file.read().split()]
        except FileNotFoundError:   # a kernel without these files, or a thread that ended
            return [int(entry.name) for entry in os.scandir("/proc")
                    if entry.name.isdigit() and parent_of(int(entry.name)) == pid]
        except (OSError, ValueError):
            continue
    return found


def state(pid: int) -> str:
    """The process's state letter (R, S, D, Z...), or "" if there is no such process."""
    fields = _stat(pid)
    return fields[0].decode() if fields else ""


def parent_of(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields else None


def times(pid: int) -> tuple[float, float]:
    """(its own CPU seconds, those of the children it reaped), in clock ticks; a process
    that has ended but is not reaped yet still has both."""
    fields = _stat(pid)
    if not fields:
        return 0.0, 0.0
    return ((int(fields[11]) + int(fields[12])) * _TICK,
            (int(fields[13]) + int(fields[14])) * _TICK)


def _stat(pid: int) -> list[bytes]:
    """The fields of /proc/PID/stat after the command name (state first), or []."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()
    except OSError:
        return []


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

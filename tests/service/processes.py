"""Processes of this machine as /proc shows them, for the tests that kill one in the middle
of a grade (a Dask worker, the server): who is whose child, and which grades are running.

A grade forked by a warm grader (``grader.classroom.warm``) keeps its server's command line,
so a grade in progress is a warm server's child; a cold one is ``python -m grader grade``.

    grading = grades_under(worker.pid)      # the grades running below that process, now
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def parents() -> dict[int, int]:
    """Every process's parent, from one pass over /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    found[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return found


def command_line(pid: int) -> str:
    """A process's arguments joined by spaces ("" when it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def descendants(pid: int, parent_of: dict[int, int] | None = None) -> list[int]:
    """Every process below ``pid`` (children, their children...)."""
    parent_of = parents() if parent_of is None else parent_of
    below, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parent_of.items() if parent in frontier]
        below += children
        frontier = children
    return below


def grades_under(pid: int) -> list[int]:
    """The grading runs in progress below ``pid``: a warm server's children, and cold
    ``python -m grader grade`` processes."""
    parent_of = parents()
    found = []
    for child in descendants(pid, parent_of):
        line = command_line(child)
        if "grader.classroom.warm" in line and "grader.classroom.warm" in command_line(
                parent_of.get(child, 0)):
            found.append(child)
        elif "-m grader grade" in line:
            found.append(child)
    return found


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def wait_gone(pids: list[int], seconds: float) -> list[int]:
    """Wait up to ``seconds`` for every one of ``pids`` to end; those still running."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [pid for pid in pids if not gone(pid)]
        if not left:
            return []
        time.sleep(0.1)
    return [pid for pid in pids if not gone(pid)]

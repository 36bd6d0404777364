"""grader.sandbox.clock: a process's CPU time read from /proc, from outside."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.judge.position import Position
from grader.sandbox import Sandbox
from grader.sandbox.clock import ProcessClock

SUBMISSIONS = Path(__file__).resolve().parent.parent / "submissions"
# Computes until its own CPU clock has moved by the given seconds, then waits for input.
SPIN = ("import sys, time\nend = time.process_time() + {0}\n"
        "while time.process_time() < end: pass\nsys.stdin.read()")


def until(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_kept_open_clock_reads_fresh_figures_and_nothing_once_the_process_ended() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SPIN.format(0.3)], stdin=subprocess.PIPE)
    try:
        clock = ProcessClock(proc.pid)
        assert clock.readable
        first = clock.cpu()
        # The same descriptors, read again, follow the process: 0.3 s more, then blocked.
        assert until(lambda: clock.cpu() >= first + 0.25)
        assert until(lambda: not clock.runnable())
        assert len(clock._files) == 2      # read through descriptors kept open
    finally:
        proc.communicate(b"", timeout=30)
    assert clock.read() is None and clock.cpu() == 0.0   # gone (and reaped)
    clock.close()


def test_a_closed_clock_reads_nothing_not_whoever_has_the_pid_now() -> None:
    clock = ProcessClock(os.getpid())
    assert clock.cpu() > 0
    clock.close()
    assert clock._files == {}
    assert clock.read() is None and clock.cpu() == 0.0 and not clock.runnable()


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_sandbox_leaves_no_descriptor_open_after_calls_crashes_and_restarts() -> None:
    before = open_descriptors()
    with Sandbox(SUBMISSIONS / "class" / "crasher.py") as box:
        for _ in range(3):   # each call crashes the worker; the next one restarts it
            assert box.call("mm_move", Position.empty(2), cpu_limit=2.0).status == "crash"
        assert box.restarts >= 2
    assert open_descriptors() == before

"""grader.sandbox.clock: a process's CPU time read from /proc, from outside."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.judge.position import Position
from grader.sandbox import Sandbox
from grader.sandbox.clock import ProcessClock
from fallback import FALLBACK

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


def open_descriptors() -> dict[str, str]:
    """This process's descriptors and what each is open on (a pipe's or socket's inode)."""
    found = {}
    for number in os.listdir("/proc/self/fd"):
        try:
            found[number] = os.readlink(f"/proc/self/fd/{number}")
        except OSError:                 # closed meanwhile (listdir's own, say)
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_sandbox_leaves_no_descriptor_open_after_calls_crashes_and_restarts() -> None:
    gc.collect()          # what earlier tests left to the collector closes now, not meanwhile
    before = open_descriptors()
    with Sandbox(SUBMISSIONS / "class" / "crasher.py") as box:
        for _ in range(3):   # each call crashes the worker; the next one restarts it
            assert box.call("mm_move", Position.empty(2), cpu_limit=2.0).status == "crash"
        assert box.restarts >= 2
    # Nothing opened that is still open: a descriptor another object of this worker closed
    # meanwhile is not the sandbox's leak, and a leaked pipe that took its number is a new one.
    opened = {number: target for number, target in open_descriptors().items()
              if before.get(number) != target}
    assert opened == {}


@FALLBACK
def test_cpu_spent_between_calls_counts_in_the_next_call_and_loading_in_none(
        tmp_path: Path) -> None:
    # A call starts from the reading taken at the last answer (the worker only idles in
    # between): a thread the student leaves computing after an answer is paid for by the
    # next call, however long the grader takes in between; the import's CPU by no call.
    source = tmp_path / "mm_player.py"
    source.write_text(
        "import threading, time\n"
        "end = time.process_time() + 0.3\n"
        "while time.process_time() < end: pass   # at import: nobody's call\n"
        "helper = None\n"
        "def burn():\n"
        "    end = time.thread_time() + 0.3\n"
        "    while time.thread_time() < end: pass\n"
        "def mm_move(board, player):\n"
        "    global helper\n"
        "    if helper is None:\n"
        "        helper = threading.Thread(target=burn)\n"
        "        helper.start()\n"
        "    else:\n"
        "        helper.join()\n"
        "    return 0, (0, 0)\n")
    with Sandbox(source, use_bwrap=False) as box:
        first = box.call("mm_move", Position.empty(3), cpu_limit=5.0)
        time.sleep(1.0)   # the thread burns its 0.3 s now, between the calls
        second = box.call("mm_move", Position.empty(3), cpu_limit=5.0)
    assert first.status == second.status == "ok"
    assert first.cpu_seconds < 0.2            # not the import's 0.3 s
    # The thread's 0.3 s, all of it but what the kernel's count of a thread that has ended
    # rounds away (whole 10 ms ticks); the old clock counted none of it (0.01 s in all).
    assert first.cpu_seconds + second.cpu_seconds >= 0.25

"""grader.sandbox.clock: a process's CPU time read from /proc, from outside."""

from __future__ import annotations

import subprocess
import sys
import time

from grader.sandbox.clock import ProcessClock

SPIN = "import time\nend = time.process_time() + {0}\nwhile time.process_time() < end: pass\n" \
       "import sys; sys.stdin.read()"


def test_a_kept_open_clock_reads_fresh_figures_and_nothing_once_the_process_ended() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SPIN.format(0.3)], stdin=subprocess.PIPE)
    try:
        clock = ProcessClock(proc.pid)
        assert clock.readable
        first = clock.cpu()
        time.sleep(0.5)       # it computes 0.3 s, then waits for input
        second = clock.cpu()
        assert second >= first + 0.2
        assert clock.runnable() is False   # blocked reading its stdin
        clock.close()
        assert clock.cpu() >= second        # closed: the next read opens /proc again
    finally:
        proc.communicate(b"", timeout=10)
    assert clock.read() is None and clock.cpu() == 0.0   # gone (and reaped)
    clock.close()

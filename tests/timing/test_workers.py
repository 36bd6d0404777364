"""The two workers of a sandbox (the student's, and the reference's that times the limits)
must never take each other down: a timeout that killed the other one turned into a "crash"
of the student's next call, on the runs where a re-calibration fell right after it (the
endless loop's report said "1 crash" on one run and not on the next).

A real sandbox, without bubblewrap (the fallback, where stopping a worker kills every
process of its uid), as root (where each worker runs as a uid of its own).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from grader.judge.position import Position
from grader.sandbox import Sandbox
from grader.sandbox.limits import Limits

LOOPS_ON_1X1 = """
    def mm_move(board, player):
        while board.get_dim() == 1:
            pass
        return 0, (0, 0)
    """


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own needs root")
def test_stopping_one_worker_never_kills_the_other(tmp_path: Path) -> None:
    path = tmp_path / "mm_player.py"
    path.write_text(textwrap.dedent(LOOPS_ON_1X1))
    with Sandbox(path, Limits(load_seconds=5.0), use_bwrap=False) as box:
        box.calibrate()                                         # the reference worker runs
        reference = box._resources.reference
        assert reference is not None
        first = box.call("mm_move", Position.empty(1), 0.2)     # stops the student's worker
        assert first.status == "timeout"
        assert box._resources.reference is reference and reference.proc.poll() is None
        box.ready()                                             # the student's, restarted
        reference.stop()   # as after a failed reference timing: every process of its uid
        box._resources.reference = None
        box.calibrate()
        # The student's new worker lived through it: its next call answers.
        again = box.call("mm_move", Position.empty(2), 1.0)
        assert again.status == "ok", again.error


# -- when a call is stopped: by its CPU time, unless it is clearly not computing --------------

class StillClock:
    """A process clock whose readings the test sets: (CPU seconds, seconds it waited for a
    CPU as the kernel has counted them so far)."""

    readable = True
    at_answer = None   # no answer yet: a call starts from a reading of its own

    def __init__(self) -> None:
        self.reading = (0.0, 0.0)
        self.state = "R"     # running or waiting for a CPU; "S": sleeping

    def read(self) -> tuple[float, float]:
        return self.reading

    def runnable(self) -> bool:
        return self.state == "R"


def test_a_computing_call_is_stopped_by_its_cpu_time_however_busy_the_cpu(monkeypatch):
    from grader.sandbox import clock as clock_module
    now = [100.0]
    monkeypatch.setattr(clock_module.time, "monotonic", lambda: now[0])
    clock = StillClock()
    # A loop on a busy CPU: 1.2 s after it started it has computed for 0.7 s, and the
    # wait for the CPU it is in now is not counted yet (the kernel adds it when it ends),
    # so it looks active for 1.2 s, past its limit and grace. It is computing: no verdict
    # until its CPU time says so, and then it is "out of CPU time", not "waiting".
    watch = clock_module.Watch(clock, 1.0, Limits(grace=0.1))
    now[0], clock.reading = 101.2, (0.7, 0.0)
    assert watch.check() > 0
    now[0], clock.reading = 101.6, (1.0, 0.3)
    with pytest.raises(clock_module.Late) as late:
        watch.check()
    assert not late.value.waited and not late.value.backstop
    # Barely started, then a long wait for a CPU (seen under load 13: 0.02 s computed in
    # 0.27 s, the rest queued): still computing, not "sleeping or waiting".
    queued = clock_module.Watch(clock, 0.07, Limits(grace=0.1))
    now[0], clock.reading = 101.87, (1.02, 0.3)
    assert queued.check() > 0
    # A sleeper is stopped soon after its limit, as waiting.
    clock.state = "S"
    asleep = clock_module.Watch(clock, 1.0, Limits(grace=0.1))
    now[0], clock.reading = now[0] + 1.2, (1.03, 0.3)
    with pytest.raises(clock_module.Late) as late:
        asleep.check()
    assert late.value.waited

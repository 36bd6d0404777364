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

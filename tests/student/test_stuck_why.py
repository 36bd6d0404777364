"""``python -m student check``: a call that never returned gets a "why:" that fits it (a
loop whose condition never changes, a recursion that never reaches a finished board), not
the reason of the answer it never gave: on the 1x1 board a file stuck in a loop was told
"do not assume the board is 3x3"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from student.__main__ import _failure
from student.checks import CHECKS, NO_MOVE, TIMEOUT, Reply, judge

ROOT = Path(__file__).resolve().parents[2]

LOOPS_ON_1X1 = ROOT / "tests" / "submissions" / "student" / "loops_on_1x1.py"


def _why(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith("why: "))


@pytest.mark.parametrize("check", CHECKS, ids=[check.name for check in CHECKS])
def test_a_stuck_call_is_told_what_to_look_for_not_the_answers_reason(check):
    stuck = judge(check, Reply(TIMEOUT, message="did not return within its limit of 0.59 s "
                                                "of CPU time"))
    why = _why(_failure(stuck))
    assert check.why not in why
    assert "3x3" not in why
    assert "loop whose condition never changes" in why
    assert "recursion that never reaches a finished board" in why
    assert ("already over" in why) == (check.moves == {NO_MOVE})


def test_a_call_that_waited_is_asked_about_sleep_and_input():
    waited = judge(CHECKS[3], Reply(TIMEOUT, waited=True, message="did not return"))
    why = _why(_failure(waited))
    assert "Does mm_move sleep (time.sleep) or wait for input (input())?" in why
    assert CHECKS[3].why not in why


def test_a_wrong_answer_keeps_the_reason_of_the_right_one():
    wrong = judge(CHECKS[3], Reply("answer", "(0, (0, 0))", 0, (0, 0)))
    assert _why(_failure(wrong)) == f"why: {CHECKS[3].why}"


@pytest.mark.timeout(600)
def test_student_check_on_a_file_stuck_on_the_1x1_board():
    done = subprocess.run([sys.executable, "-m", "student", "check", str(LOOPS_ON_1X1)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  a 1x1 board" in done.stdout
    why = _why(done.stdout.split("FAIL  a 1x1 board", 1)[1])
    assert "do not assume the board is 3x3" not in why
    assert why.startswith("why: mm_move never returned")

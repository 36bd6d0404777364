"""The minimax's speed as ``python -m student check`` judges it: the grader's own client, in
the grader's sandbox, asking the positions that decide the grader's time limits
(``grader.assignments.minimax.public.SPEED``), with the grader's limits; and its words.

That the client's verdicts are the grader's (limits, careful measurements, tiers too slow)
is the suite's and the sandbox's tests' business; here: the positions are the grader's own,
the summary says what each verdict means, and the check says it end to end.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.assignments.minimax.public import SPEED
from grader.assignments.minimax.test_speed import (NO_ANSWER, PRESUMED, SLOW, WITHIN, Timed,
                                                   summary)
from grader.judge.position import Position
from grader.judge.positions import hidden_positions
from grader.judge.solver import Solver
from grader.assignments.minimax.client import SPEED_HINT
from grader.judge.results import STUCK
from grader.timing import policy
from grader.timing.pacing import MM_MOVE, Pacing

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "tests" / "submissions"


def student_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


# ---- the positions are the grader's own ---------------------------------------------------

def graders_tiers() -> tuple[Position, ...]:
    """The positions that decide the grader's tiers, found again with the grader's pacing
    from its hidden positions: for each size and mode, the hardest planned position of its
    largest small tier and of every tier judged by ratio."""
    pacing = Pacing(policy.TimePolicy(), Solver(), hidden_positions().all())
    found: dict[tuple[int, bool, int], Position] = {}
    for position in pacing.order(hidden_positions().all()):
        tier = pacing.tier(MM_MOVE, position)
        key = (tier.dim, tier.reverse, tier.empties)
        if tier.empties and key not in found:
            found[key] = pacing.yardstick(tier, position)
    chosen: list[Position] = []
    for family in dict.fromkeys(key[:2] for key in found):
        mine = [(key, found[key]) for key in found if key[:2] == family]
        small = [p for _, p in mine if not pacing.policy.measured(pacing.nodes(p))]
        chosen += small[-1:] + [p for _, p in mine if pacing.policy.measured(pacing.nodes(p))]
    return tuple(chosen)


def test_the_speed_positions_are_the_graders() -> None:
    assert SPEED == graders_tiers()


# ---- what each verdict says ----------------------------------------------------------------

def timed(position: Position, status: str, share: float = 0.0, why: str = "") -> Timed:
    return Timed(position, status, share, 1.0, why)


def test_within_the_limits_says_the_slowest_tiers_share() -> None:
    lines = summary([timed(SPEED[1], WITHIN, 0.2), timed(SPEED[2], WITHIN, 0.3)])
    assert lines == ["within the grader's limits, with margin: the slowest tier used 30% of "
                     "its limit (3x3, 7 empty squares: 0.30 s where the limit here is 1.00 s)"]
    close = summary([timed(SPEED[2], WITHIN, 0.9)])[0]
    assert close.startswith("within the grader's limits, but close to a limit: the slowest "
                            "tier used 90% of its limit")
    assert close.endswith(SPEED_HINT)


def test_too_slow_says_from_which_empty_squares_and_what_to_look_for() -> None:
    lines = summary([timed(SPEED[0], WITHIN, 0.01), timed(SPEED[1], SLOW),
                     timed(SPEED[2], PRESUMED), timed(SPEED[6], SLOW)])
    assert lines[0].startswith("too slow for the grader from 6 empty squares (3x3): more "
                               "than 1.00 s, the limit here, on mm_move(TTTBoard(3, False, ")
    assert lines[1] == "also too slow: 3x3 reverse game from 6 empty squares (limit 1.00 s)"
    assert lines[2].endswith(SPEED_HINT)


def test_stuck_and_no_answer_are_not_within_the_limits() -> None:
    stuck = summary([timed(SPEED[0], STUCK)])
    assert stuck[0].endswith("(the grader's limit for small positions here): an endless loop?")
    lines = summary([timed(position, NO_ANSWER, why="ValueError: no") for position in SPEED])
    assert lines == [f"not judged on {len(SPEED)} of the {len(SPEED)} positions (3x3, 5 empty "
                     "squares; 3x3, 6 empty squares; 3x3, 7 empty squares; and 16 more): "
                     "mm_move gave no answer (ValueError: no), and the grader gives a call "
                     "with no answer no credit for time either"]


# ---- python -m student check, end to end ---------------------------------------------------

def test_check_says_a_correct_file_is_within_the_limits() -> None:
    done = student_check("--file", str(GALLERY / "grader" / "correct_plain.py"))
    assert done.returncode == 0, done.stdout
    assert re.search(r"\nSpeed, as the grader judges it: 19 positions, the hardest of each "
                     r"size, mode and number of empty squares that decides a limit\. The "
                     r"grader's yardstick here: a plain minimax on a board written like the "
                     r"course's would search the empty 3x3 board in \d+\.\d\d s of CPU time\.",
                     done.stdout), done.stdout
    assert "  within the grader's limits, with margin: the slowest tier used " in done.stdout
    assert done.stdout.rstrip().endswith("13 passed, 0 failed; speed: within the grader's "
                                         "limits")
    # Not a terminal: what is timed, on stderr; none of it on stdout.
    assert done.stderr.startswith("check: timing the speed of ")
    assert "timing" not in done.stdout and "\r" not in done.stdout


@pytest.mark.long
def test_check_says_a_slow_file_is_too_slow_from_six_empty_squares() -> None:
    """As the grader says, in its checks (a slow call of a public position fails as it
    fails in a grade) and in the speed part. (That a file cannot forge its time, the
    sandbox's tests prove: the sandbox times it from outside, here as in a grade.)"""
    done = student_check("--file", str(GALLERY / "grader" / "too_slow.py"))
    assert done.returncode == 1
    assert "  FAIL  O must block\n" in done.stdout
    assert "        problem:  timeout (no answer: this check could not be judged)" in done.stdout
    assert re.search(r"  too slow for the grader from 6 empty squares \(3x3\): more than "
                     r"\d+\.\d+ s, the limit here, on mm_move\(", done.stdout), done.stdout
    assert "also too slow: 3x3 reverse game from 6 empty squares" in done.stdout
    assert done.stdout.rstrip().endswith("; speed: too slow for the grader")


def test_check_stops_at_an_endless_loop() -> None:
    done = student_check("--file", str(GALLERY / "grader" / "bug_infinite_loop.py"))
    out = done.stdout
    assert done.returncode == 1
    assert out.count("an endless loop?") == 1   # one call was made, and it was stuck
    assert ("not run: the 12 other checks and the speed checks, because mm_move did not "
            'return on "finished board: X has won": fix that first') in out
    assert "  ok  " not in out and "Speed," not in out
    assert out.rstrip().endswith("0 passed, 1 failed, 12 not run; speed: not judged "
                                 "(mm_move did not return on a check)")


def test_check_stops_a_call_that_sleeps() -> None:
    """A call that sleeps uses no CPU time: it is stopped when it has been active well past
    its limit (as the grader stops it), and nothing more is asked."""
    done = student_check("--file", str(GALLERY / "timing" / "sleeper.py"))
    out = done.stdout
    assert done.returncode == 1
    assert re.search(r"did not answer within its limit of \d+\.\d+ s: it was stopped after "
                     r"\d+\.\d+ s in which it computed for only \d+\.\d+ s \(the rest it spent "
                     r"sleeping or waiting\)", out), out
    assert "waiting for something that never comes (input(), a sleep)?" in out
    assert out.rstrip().endswith("0 passed, 1 failed, 12 not run; speed: not judged "
                                 "(mm_move did not return on a check)")

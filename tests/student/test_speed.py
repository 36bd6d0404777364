"""The check's speed judgment: the grader's tiers and limits, shipped as data in student/,
the yardstick that stands for the grader's reference, and the verdicts of
``python -m student check`` on files the grader judges too slow, stuck or within limits.

The student package may not import the grader (the handout ships without it); these tests
may, to check that what the handout ships is the grader's own policy and never drifts.
"""

from __future__ import annotations

import ast
import inspect
import io
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

import student.speed as speed
import student.tiers as tiers
import student.yardstick as yardstick
from grader.judge.positions import hidden_positions
from grader.judge.solver import Solver
from grader.sandbox.inside import reference
from grader.suite.config import Config
from grader.timing import policy
from grader.timing.pacing import MM_MOVE, Pacing
from student.__main__ import SpeedProgress
from student.checks import ANSWER, ERROR, TIMEOUT, Reply
from student.speed import (NO_ANSWER, PRESUMED, STUCK, TOO_SLOW, WITHIN, Calibration,
                           judge_speed, summary)
from student.tiers import TIERS, Tier

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "tests" / "submissions"


def student_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


# ---- what the handout ships is the grader's own policy ---------------------------------

def graders_tiers() -> tuple[Tier, ...]:
    """The positions that decide the grader's tiers, regenerated with the grader: for each
    size and mode, the hardest planned position of its largest small tier and of every
    tier judged by ratio, with the reference's exact node count."""
    pacing = Pacing(policy.TimePolicy(), Solver(), hidden_positions().all())
    found: dict[tuple[int, bool, int], Tier] = {}
    for position in pacing.order(hidden_positions().all()):
        tier = pacing.tier(MM_MOVE, position)
        key = (tier.dim, tier.reverse, tier.empties)
        if tier.empties and key not in found:
            hardest = pacing.yardstick(tier, position)
            found[key] = Tier(tier.dim, tier.reverse, tier.empties, hardest.cells,
                              hardest.player, pacing.nodes(hardest))
    chosen: list[Tier] = []
    for family in dict.fromkeys(key[:2] for key in found):
        mine = [tier for key, tier in found.items() if key[:2] == family]
        small = [tier for tier in mine if not pacing.policy.measured(tier.nodes)]
        chosen += small[-1:] + [tier for tier in mine if pacing.policy.measured(tier.nodes)]
    return tuple(chosen)


def test_shipped_tiers_are_the_graders() -> None:
    assert TIERS == graders_tiers()


def test_shipped_tiers_are_asked_in_the_graders_order() -> None:
    pacing = Pacing(policy.TimePolicy(), Solver(), hidden_positions().all())
    order = [pacing.tier(MM_MOVE, p) for p in pacing.order(hidden_positions().all())]
    ranks = {(t.dim, t.reverse, t.empties): i for i, t in reversed(list(enumerate(order)))}
    shipped = [ranks[(t.dim, t.reverse, t.empties)] for t in TIERS]
    assert shipped == sorted(shipped)


def test_shipped_policy_is_the_graders_default() -> None:
    default = Config.load().policy
    assert (tiers.FACTOR, tiers.SMALL) == (default.factor, default.small)
    assert tiers.EMPTY_BOARD_NODES == policy.EMPTY_BOARD_NODES
    assert tiers.MEASURED_NODES == policy.MEASURED_NODES
    for mine, theirs, nodes in ((tiers.REFERENCE_3X3, policy.REFERENCE_3X3,
                                 policy.REFERENCE_3X3_NODES),
                                (tiers.REFERENCE_4X4, policy.REFERENCE_4X4,
                                 policy.REFERENCE_4X4_NODES)):
        assert (mine.dim, mine.reverse, mine.cells, mine.player, mine.nodes) == (
            theirs.dim, bool(theirs.reverse), theirs.cells, theirs.player, nodes)


def test_limits_are_the_graders_for_the_same_calibration() -> None:
    mine = Calibration(per_node_3x3=4.2e-6, ratio_4x4=1.3)
    theirs = policy.Calibration(per_node_3x3=4.2e-6, ratio_4x4=1.3)
    default = policy.TimePolicy()
    for tier in TIERS:
        assert mine.limit(tier) == pytest.approx(default.limit(theirs, tier.dim, tier.nodes))


# ---- the yardstick: the grader's reference, without the minimax ---------------------------

def _class_body(module: object) -> str:
    """The CourseBoard class of ``module`` as an AST dump, without its docstring."""
    tree = ast.parse(inspect.getsource(module))
    board = next(node for node in tree.body
                 if isinstance(node, ast.ClassDef) and node.name == "CourseBoard")
    board.body = [node for node in board.body
                  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    return ast.dump(board)


def test_the_yardsticks_board_is_the_references() -> None:
    assert _class_body(yardstick) == _class_body(reference)


@pytest.mark.parametrize("tier", [t for t in TIERS if t.nodes < 100_000]
                         + [tiers.REFERENCE_3X3, tiers.REFERENCE_4X4], ids=Tier.describe)
def test_the_walk_visits_the_nodes_the_reference_visits(tier: Tier) -> None:
    board = reference.CourseBoard(tier.dim, tier.reverse, tier.grid)
    assert reference.plain_minimax(board, tier.player)[2] == tier.nodes
    walked = yardstick.walk(yardstick.CourseBoard(tier.dim, tier.reverse, tier.grid),
                            tier.player)
    assert walked == tier.nodes


def test_the_walk_is_no_minimax() -> None:
    """The handout gives no solution away: the walk returns a count, never a score."""
    source = inspect.getsource(yardstick.walk)
    assert "SCORES" not in source and "max(" not in source and "min(" not in source
    assert yardstick.walk(yardstick.CourseBoard(2), yardstick.PLAYERX) == 41


def test_walk_to_reference_is_measured_here() -> None:
    """WALK_TO_REFERENCE is the reference's CPU time over the walk's for the same tree.

    A ratio of two CPU times in one process, taken in alternation (a change of the
    machine's speed hits both), as the median of many: it holds on a busy machine; the
    tolerance is wide enough for that and narrow enough to catch a walk that drifted from
    the reference (each of clone, check_win, get_empty_squares is about a third of a node).
    """
    pinned = hasattr(os, "sched_setaffinity")
    allowed = os.sched_getaffinity(0) if pinned else set()
    if pinned:   # one CPU for both, as the grader and the check time them
        os.sched_setaffinity(0, {min(allowed)})
    tier = TIERS[2]   # 3x3, 7 empty squares: 9,400 nodes, a few tens of milliseconds
    ratios = []
    try:
        for _ in range(15):
            start = time.process_time()
            reference.plain_minimax(reference.CourseBoard(3, False, tier.grid), tier.player)
            middle = time.process_time()
            yardstick.walk(yardstick.CourseBoard(3, False, tier.grid), tier.player)
            ratios.append((middle - start) / (time.process_time() - middle))
    finally:
        if pinned:
            os.sched_setaffinity(0, allowed)
    measured = statistics.median(ratios)
    assert 0.85 < measured / yardstick.WALK_TO_REFERENCE < 1.18, measured


def test_the_yardstick_child_times_a_position() -> None:
    with speed.Yardstick(None) as child:
        seconds = child.seconds(tiers.REFERENCE_3X3, runs=2)
        calibration = child.calibrate()
    assert len(seconds) == 2 and all(s > 0 for s in seconds)
    assert calibration.per_node_3x3 > 0 and calibration.ratio_4x4 > 0


# ---- the verdicts, with a scripted mm_move -------------------------------------------------

class FakeYardstick:
    """The reference's time: 1 microsecond a node."""

    def seconds(self, tier: Tier, runs: int = 1) -> list[float]:
        return [tier.nodes * 1e-6] * runs


CALIBRATION = Calibration(per_node_3x3=1e-6)


def scripted(seconds_for) -> tuple[list[Tier], speed.Ask]:
    """An ask() that answers in ``seconds_for(tier)`` CPU seconds (None: raises), and the
    list of the tiers it was asked."""
    asked: list[Tier] = []

    def ask(tier: Tier, limit: float) -> Reply:
        asked.append(tier)
        seconds = seconds_for(tier)
        if seconds is None:
            return Reply(ERROR, message="Traceback...\nValueError: no")
        if seconds > limit:
            return Reply(TIMEOUT, cpu_seconds=limit, message="did not return")
        return Reply(ANSWER, "(0, (0, 0))", 0, (0, 0), cpu_seconds=seconds)
    return asked, ask


def test_a_fast_solution_is_within_with_its_margin() -> None:
    asked, ask = scripted(lambda tier: tier.nodes * 1e-6)   # as fast as the reference
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    assert asked == list(TIERS)
    assert {m.status for m in results} == {WITHIN}
    text = summary(results)
    assert text[0].startswith("within the grader's limits, with margin: the slowest tier "
                              "used 20% of its limit")


def test_a_solution_close_to_a_limit_is_told_so() -> None:
    asked, ask = scripted(lambda tier: 4.5 * tier.nodes * 1e-6)   # 90% of every limit
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    assert {m.status for m in results} == {WITHIN}
    assert summary(results)[0].startswith(
        "within the grader's limits, but close to a limit: the slowest tier used 90% of its "
        "limit")
    assert "the grader may land on either side of it: look for repeated work" in (
        summary(results)[0])


def test_too_slow_from_a_tier_stops_asking_larger_ones() -> None:
    # Ten times the reference: too slow on every tier judged by ratio.
    asked, ask = scripted(lambda tier: 10 * tier.nodes * 1e-6)
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    by_tier = {(m.tier.dim, m.tier.reverse, m.tier.empties): m.status for m in results}
    assert by_tier[(3, False, 5)] == WITHIN      # small: only a stuck call fails
    assert by_tier[(3, False, 6)] == TOO_SLOW
    assert by_tier[(3, False, 9)] == PRESUMED
    assert by_tier[(4, True, 6)] == TOO_SLOW
    # A too-slow tier is measured again (two measurements of three decide, here the
    # first two); the larger ones of its size and mode are not asked at all.
    assert asked.count(TIERS[1]) == 2 and TIERS[2] not in asked
    text = summary(results)
    assert text[0].startswith("too slow for the grader from 6 empty squares (3x3): 0.016 s "
                              "where the limit here is 0.008 s, on mm_move(TTTBoard(3, ")
    assert "searching a child twice" in text[-1]


def test_a_call_near_its_limit_is_decided_by_two_of_three() -> None:
    calls = iter([6.0, 4.0, 4.5])   # x the reference: over, within, within

    def seconds_for(tier: Tier) -> float:
        return (next(calls) if tier == TIERS[2] else 1.0) * tier.nodes * 1e-6

    asked, ask = scripted(seconds_for)
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    seven = next(m for m in results if m.tier == TIERS[2])
    assert seven.status == WITHIN and seven.remeasured
    assert asked.count(TIERS[2]) == 3


def test_a_stuck_call_on_a_small_position_stops_everything() -> None:
    asked, ask = scripted(lambda tier: 1e9)   # never returns
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    assert len(asked) == 1 and [m.status for m in results] == [STUCK]
    assert summary(results)[0].startswith(
        "mm_move did not return on mm_move(TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], ")
    assert "an endless loop?" in summary(results)[0]


def test_no_answer_is_not_judged() -> None:
    asked, ask = scripted(lambda tier: None)
    results = judge_speed(ask, FakeYardstick(), CALIBRATION)
    assert {m.status for m in results} == {NO_ANSWER} and len(asked) == len(TIERS)
    assert summary(results) == [
        f"not judged on {len(TIERS)} of the {len(TIERS)} positions (3x3, 5 empty squares; "
        "3x3, 6 empty squares; 3x3, 7 empty squares; and 16 more): mm_move gave no answer "
        "(ValueError: no), and the grader gives a call with no answer no credit for time "
        "either"]


# ---- progress: what is timed now --------------------------------------------------------

def test_progress_names_each_tier_asked_and_each_measurement_again() -> None:
    calls = iter([6.0, 4.0, 4.5])   # x the reference on TIERS[2]: measured three times

    def seconds_for(tier: Tier) -> float:
        if tier.family == (3, True):
            return 10 * tier.nodes * 1e-6          # too slow: its larger tiers not asked
        return (next(calls) if tier == TIERS[2] else 1.0) * tier.nodes * 1e-6

    asked, ask = scripted(seconds_for)
    said: list[str] = []
    judge_speed(ask, FakeYardstick(), CALIBRATION, progress=said.append)
    total = len(TIERS)
    firsts = [text for text in said if "again" not in text]
    assert firsts == [f"{tier.describe()} ({TIERS.index(tier) + 1} of {total})"
                      for tier in dict.fromkeys(asked)]   # presumed tiers are not timed
    assert said[2:5] == [f"3x3, 7 empty squares (3 of {total})",
                         "3x3, 7 empty squares again, near its limit (measurement 2 of up to 3)",
                         "3x3, 7 empty squares again, near its limit (measurement 3 of up to 3)"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_one_line_in_place_in_a_terminal_and_a_line_per_step_elsewhere() -> None:
    terminal, log = Terminal(), io.StringIO()
    for stream in (terminal, log):
        progress = SpeedProgress(stream)
        progress("the grader's yardstick here", step=False)
        progress("3x3, 5 empty squares (1 of 19)")
        progress("3x3, 6 empty squares (2 of 19)")
        progress.clear()
    assert terminal.getvalue() == ("\r\x1b[K  timing the grader's yardstick here ..."
                                   "\r\x1b[K  timing 3x3, 5 empty squares (1 of 19) ..."
                                   "\r\x1b[K  timing 3x3, 6 empty squares (2 of 19) ..."
                                   "\r\x1b[K")            # erased before the verdicts
    assert log.getvalue() == ("speed: timing 3x3, 5 empty squares (1 of 19)\n"
                              "speed: timing 3x3, 6 empty squares (2 of 19)\n")


# ---- python -m student check, end to end ---------------------------------------------------

def test_check_says_a_correct_file_is_within_the_limits() -> None:
    done = student_check("--file", str(GALLERY / "grader" / "correct_plain.py"))
    assert done.returncode == 0, done.stdout
    assert "  within the grader's limits, with margin: the slowest tier used " in done.stdout
    assert done.stdout.rstrip().endswith("12 passed, 0 failed; speed: within the grader's "
                                         "limits")
    # Not a terminal: a line per tier on stderr, none on stdout (the verdicts).
    progress = [line for line in done.stderr.splitlines() if line.startswith("speed: timing")]
    assert progress[0] == f"speed: timing {TIERS[0].describe()} (1 of {len(TIERS)})"
    assert len([line for line in progress if "again" not in line]) == len(TIERS)
    assert "timing" not in done.stdout and "\r" not in done.stdout


@pytest.mark.parametrize("path", ["grader/too_slow.py", "timing/double_recursion.py",
                                  "timing/clock_forger.py"])
def test_check_says_a_slow_file_is_too_slow_from_six_empty_squares(path: str) -> None:
    """As the grader says; clock_forger.py patches time.process_time and disarms the CPU
    timer in its own process, and changes nothing."""
    done = student_check("--file", str(GALLERY / path))
    assert done.returncode == 1
    assert re.search(r"  too slow for the grader from 6 empty squares \(3x3\): (more than )?"
                     r"\d\.\d+ s where the limit here is \d\.\d+ s, on mm_move\(", done.stdout)
    assert "also too slow: 3x3 reverse game from 6 empty squares" in done.stdout
    assert done.stdout.rstrip().endswith("12 passed, 0 failed; speed: too slow for the grader")


def test_check_stops_at_an_endless_loop() -> None:
    done = student_check("--file", str(GALLERY / "grader" / "bug_infinite_loop.py"))
    out = done.stdout
    assert done.returncode == 1
    assert out.count("an endless loop?") == 1   # one call was made, and it was stuck
    assert ("not run: the 11 other checks and the speed checks, because mm_move did not "
            'return on "finished board: X has won": fix that first') in out
    assert "  ok  " not in out and "Speed," not in out
    assert out.rstrip().endswith("0 passed, 1 failed, 11 not run; speed: not judged "
                                 "(mm_move did not return on a check)")


def test_the_handout_judges_speed_without_the_grader(tmp_path: Path) -> None:
    """The handout's files alone (no site-packages, so no grader and no project install)
    judge a correct file's speed."""
    from grader.classroom.handout import FOLDER, handout_files
    for name, data in handout_files():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    folder = tmp_path / FOLDER
    correct = folder / "mine.py"
    correct.write_bytes((GALLERY / "grader" / "correct_plain.py").read_bytes())
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(folder)}
    done = subprocess.run([sys.executable, "-S", "-m", "student", "check", "--file",
                           str(correct)], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "within the grader's limits, with margin" in done.stdout
    no_grader = subprocess.run([sys.executable, "-S", "-c", "import grader"], cwd=folder,
                               env=env, capture_output=True, text=True)
    assert "No module named 'grader'" in no_grader.stderr


def test_check_stops_a_call_that_sleeps() -> None:
    """A call that sleeps uses no CPU time: it is stopped when it has been active well past
    its limit (as the grader stops it), and nothing more is asked."""
    done = student_check("--file", str(GALLERY / "timing" / "sleeper.py"))
    out = done.stdout
    assert done.returncode == 1
    assert re.search(r"problem:  did not return within its limit of \d+\.\d+ s: it computed "
                     r"for only \d+\.\d+ s, the rest it spent sleeping or waiting", out)
    assert "Does mm_move sleep (time.sleep) or wait for input (input())?" in out
    assert out.rstrip().endswith("0 passed, 1 failed, 11 not run; speed: not judged "
                                 "(mm_move did not return on a check)")

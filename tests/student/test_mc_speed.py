"""The speed part of ``python -m student check`` on a Monte Carlo file: mc_move timed with
the grader's limits (``provided.montecarlo.call_limit``, the rule the grader uses too),
against the grader's yardstick timed here.

The student package may not import the grader; these tests may, to check that the limits
and trials the check uses are the grader's. Student files run in child processes
(``python -m student check``); no test asserts a time, only the words.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.assignments.montecarlo import bounds
from grader.assignments.montecarlo.session import MonteCarloClient
from grader.suite.config import Config
from grader.timing import policy
from provided.montecarlo import FACTOR, SMALL, SPEED_HINT, call_limit
from student import mc_speed
from student.checks import ANSWER, ERROR, TIMEOUT, Reply
from student.mc_checks import MC_CHECKS
from student.mc_speed import (NO_ANSWER, SPEED_CALLS, TOO_SLOW, WITHIN, Timed, summary,
                              time_mc_move, verdict)
from student.speed import Calibration

ROOT = Path(__file__).resolve().parents[2]
MONTECARLO_FILES = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
CORRECT = MONTECARLO_FILES / "correct_clone.py"
LINE = re.compile(r"  mc_move with (1,000 trials on the empty 3x3|100 trials on the empty 4x4) "
                  r"board: \d+\.\d+ s where the limit here is \d+\.\d+ s \((\d+%|under 1%)\)")


HIDDEN = ROOT / "grader" / "assignments" / "montecarlo" / "test_montecarlo.py"


def hidden_trials() -> tuple[int, list[int]]:
    """The hidden tests' trials, read from their source (importing them needs the grader's
    pytest plugin): the games' GAME_TRIALS, and those of each 4x4 board in LEGAL."""
    tree = ast.parse(HIDDEN.read_text())
    values = {node.targets[0].id: node.value for node in tree.body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
    game = ast.literal_eval(values["GAME_TRIALS"])
    legal = values["LEGAL"]
    assert isinstance(legal, ast.List)
    four = [ast.literal_eval(entry.elts[4]) for entry in legal.elts
            if isinstance(entry.elts[1], ast.List) and len(entry.elts[1].elts) == 4]
    return game, four


def student_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def slow_copy(tmp_path: Path) -> Path:
    """correct_clone.py with a busy loop in each trial of mc_move: a thousand times slower."""
    source = CORRECT.read_text()
    trial = "        trial = board.clone()\n"
    assert source.count(trial) == 1
    path = tmp_path / "slow_mc.py"
    path.write_text(source.replace(trial, "        for _ in range(1_000_000):   # busy\n"
                                          "            pass\n" + trial))
    return path


# ---- the limits and trials are the grader's ----------------------------------------------

def test_call_limit_defaults_are_the_montecarlo_assignment_s() -> None:
    default = Config.load(assignment="montecarlo").policy
    assert (FACTOR, SMALL) == (default.factor, default.small)


@pytest.mark.parametrize("call", SPEED_CALLS, ids=lambda call: f"{call.dim}x{call.dim}")
def test_a_speed_call_s_limit_is_the_grader_s(call: mc_speed.SpeedCall) -> None:
    """Computed here from the student's calibration, as the grader's MonteCarloClient
    computes it from its own for the same measurement."""
    mine = Calibration(per_node_3x3=4.2e-6, ratio_4x4=1.3)
    sandbox = SimpleNamespace(calibration=policy.Calibration(per_node_3x3=4.2e-6,
                                                             ratio_4x4=1.3))
    client = MonteCarloClient(sandbox, Config.load(assignment="montecarlo"))
    assert call.limit(mine) == pytest.approx(client.limit(call.dim, call.trials,
                                                          call.dim * call.dim))


def test_the_speed_calls_ask_at_least_the_grader_s_trials() -> None:
    game, four = hidden_trials()
    assert four   # the hidden tests ask mc_move on a 4x4 board
    assert mc_speed.GRADER_GAME_TRIALS == game
    assert mc_speed.GRADER_MOST_TRIALS == max(bounds.STEPS)
    assert mc_speed.GRADER_4X4_TRIALS == max(four)
    by_dim = {call.dim: call.trials for call in SPEED_CALLS}
    assert game < by_dim[3] <= max(bounds.STEPS)
    assert by_dim[4] >= mc_speed.GRADER_4X4_TRIALS
    assert len({call.seed for call in SPEED_CALLS}) == len(SPEED_CALLS)
    assert not {call.seed for call in SPEED_CALLS} & {s for c in MC_CHECKS for s in c.seeds}


# ---- the verdicts, from replies ------------------------------------------------------------

def test_a_call_over_its_limit_is_too_slow_and_gets_the_hint() -> None:
    def ask(call: mc_speed.SpeedCall, cpu: float) -> Reply:
        if call.dim == 3:
            return Reply(TIMEOUT, cpu_seconds=cpu)            # stopped at its limit
        return Reply(ANSWER, cpu_seconds=cpu * 1.1)          # answered, but past it

    results = time_mc_move(ask, Calibration(4e-6))
    assert [timed.status for timed in results] == [TOO_SLOW, TOO_SLOW]
    lines = summary(results)
    assert lines[0] == ("mc_move with 1,000 trials on the empty 3x3 board: stopped at the "
                        "limit here, 1.04 s (too slow)")
    assert lines[1].endswith("(too slow)") and "where the limit here is" in lines[1]
    assert lines[2].startswith("too slow for the grader on the empty 3x3 board and the empty "
                               "4x4 board")
    assert lines[2].endswith(SPEED_HINT)
    assert verdict(results) == "too slow for the grader"


def test_a_call_with_no_answer_is_not_judged() -> None:
    results = time_mc_move(lambda call, cpu: Reply(ERROR, message="Traceback ...\n"
                                                                  "ZeroDivisionError: x"),
                           Calibration(4e-6))
    assert {timed.status for timed in results} == {NO_ANSWER}
    assert summary(results)[0] == ("mc_move with 1,000 trials on the empty 3x3 board: no "
                                   "answer (ZeroDivisionError: x)")
    assert verdict(results) == "not judged (mc_move gave no answer)"


def test_close_to_a_limit_is_said_with_the_hint() -> None:
    call = SPEED_CALLS[0]
    lines = summary([Timed(call, WITHIN, 0.9, 1.0)])
    assert lines[0].endswith("0.90 s where the limit here is 1.00 s (90%)")
    assert lines[1].startswith("within the grader's limits, but close to one")
    assert lines[1].endswith(SPEED_HINT)


# ---- python -m student check, end to end ----------------------------------------------------

def test_a_correct_file_is_within_the_limits() -> None:
    done = student_check(str(CORRECT))
    out = done.stdout
    assert done.returncode == 0, out
    assert ("Speed of mc_move, as the grader judges it. The grader's yardstick here: a plain "
            "minimax on a board written like the course's would search the empty 3x3 board "
            "in ") in out
    assert "Its limits: a call may take 5 times what its work costs" in out
    assert len(LINE.findall(out)) == 2, out
    assert "  within the grader's limits, with margin (on 3x3 boards the grader gives " in out
    assert out.rstrip().endswith(f"{len(MC_CHECKS)} passed, 0 failed; speed: within the "
                                 "grader's limits")
    # Not a terminal: a line per call on stderr, none on stdout.
    progress = [line for line in done.stderr.splitlines() if line.startswith("speed: timing")]
    assert progress == [f"speed: timing {call.describe()} ({number} of {len(SPEED_CALLS)})"
                        for number, call in enumerate(SPEED_CALLS, 1)]
    assert "timing" not in out


def test_a_slow_mc_move_is_too_slow_with_the_hint(tmp_path: Path) -> None:
    """A trial a thousand times slower: the 500-trial checks run out of their CPU time, and
    the speed part says it is too slow (not stuck), as the grader would."""
    done = student_check(str(slow_copy(tmp_path)))
    out = done.stdout
    assert done.returncode == 1
    assert "  ok    mc_move: an empty square on 3x3" in out
    assert "the speed part below says whether it is only slow" in out
    assert ("  mc_move with 1,000 trials on the empty 3x3 board: stopped at the limit here, "
            in out)
    assert "  too slow for the grader on the empty 3x3 board" in out
    assert SPEED_HINT in out
    assert out.rstrip().endswith("; speed: too slow for the grader")


def test_no_speed_skips_the_speed_part() -> None:
    done = student_check("--no-speed", str(CORRECT))
    assert done.returncode == 0, done.stdout
    assert "speed" not in done.stdout.lower().replace("--no-speed", "")
    assert done.stdout.rstrip().endswith(f"{len(MC_CHECKS)} passed, 0 failed")
    assert "speed: timing" not in done.stderr


def test_a_stuck_function_other_than_mc_move_leaves_speed_unjudged(tmp_path: Path) -> None:
    source = CORRECT.read_text()
    marker = "def mc_update_scores(scores, board, player):\n"
    body = source.index('"""', source.index('"""', source.index(marker)) + 3) + 3
    path = tmp_path / "stuck_mc.py"
    path.write_text(source[:body] + "\n    while True:\n        pass" + source[body:])
    out = student_check(str(path)).stdout
    assert ('not run: the 10 other checks and the speed checks, because mc_update_scores did '
            'not return on "mc_update_scores: the machine player (X) won": fix that first'
            ) in out
    assert "Speed of mc_move" not in out
    assert out.rstrip().endswith("; speed: not judged (mc_update_scores did not return on a "
                                 "check)")


def test_the_minimax_check_says_its_yardstick_as_before() -> None:
    """The refactored calibration line of the minimax's check, word for word."""
    done = student_check("--no-speed", "--file",
                         str(ROOT / "tests" / "submissions" / "grader" / "correct_plain.py"))
    assert re.search(r"\nThe grader's yardstick here: a plain minimax on a board written like "
                     r"the course's would search the empty 3x3 board in \d+\.\d\d s of CPU "
                     r"time\. A call may take 5 times its time on the hardest position with "
                     r"as many empty squares; on small positions, \d+\.\d\d s\.\n",
                     done.stdout), done.stdout
    assert done.stdout.rstrip().endswith("12 passed, 0 failed")

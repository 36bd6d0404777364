"""Files that try to bend the Monte Carlo rubric, graded once as an instructor grades them.

``tests/submissions/montecarlo/`` holds a player for each way a file could once pick its
own rubric or slip past the checks (constants of 0.0, 1e-12, nan and inf; scores of nan; a
grid of one shared row; a maximum that starts at a fixed floor), and two correct players
the grader once failed (the older template's MCMATCH and MCOTHER; the course's module
imported under the student's own name, as provided). Each is graded once, in one
``python -m grader batch --jobs 2``; each gets at most the score its docstring says, loses
in the item it bends, and its report says why. ``student check`` takes the import as provided
as the grader does; and a file that does not parse is graded by the rubric its def lines
name. The rules that decide are unit-tested in
``tests/suite/test_montecarlo_constants.py``.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "submissions" / "montecarlo"
COURSE = "the checks use the course's SCORE_CURRENT = 1.0 and SCORE_OTHER = 1.0"


@dataclass(frozen=True)
class Case:
    """One file and what its grade must show."""

    most: float                     # the most it may score (a correct one: exactly 100)
    loses: tuple[str, ...] = ()     # items that must lose points
    words: tuple[str, ...] = ()     # must appear in its report
    keeps: tuple[str, ...] = ()     # items that must keep all their points


CASES = {
    "zero_constants": Case(75, ("mc_update_scores", "mc_move"),
                           (COURSE, "SCORE_CURRENT = 0.0 makes no fair test",
                            "every call ran with SCORE_CURRENT = 1.0 and SCORE_OTHER = 1.0")),
    "tiny_constants": Case(75, ("mc_update_scores", "mc_move"),
                           (COURSE, "SCORE_CURRENT = 1e-12 makes no fair test")),
    # Its mc_update_scores is right, and passes only if it ran with the course's values
    # set in its module (with its own nan, every grid would be nan).
    "nonfinite_constants": Case(91, ("mc_move",),
                                (COURSE, "SCORE_CURRENT = nan makes no fair test: it is not "
                                 "a finite number"), keeps=("mc_update_scores",)),
    "nan_scores": Case(55, ("mc_update_scores", "mc_move")),
    "shared_rows": Case(98, ("mc_move",), ("[[0] * dim for _ in range(dim)]",)),
    "fixed_floor": Case(97, ("get_best_move",),
                        ("Cannot choose from an empty sequence", "-1000000001")),
    "old_template": Case(100, (), ("the checks use the file's MCMATCH = 2.0 and MCOTHER = "
                                   "3.0 (the course's older template's names)",)),
    "as_provided": Case(100, (), ("note: your file imports tictactoe_board as provided",
                                  "the checks use the file's SCORE_CURRENT = 2.0 and "
                                  "SCORE_OTHER = 3.0")),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    out = tmp_path_factory.mktemp("rubric") / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(FOLDER), "--out",
                           str(out), "--jobs", "2", "--assignment", "montecarlo"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "gradebook.csv", encoding="utf-8-sig") as file:
        ids = [row["student_id"] for row in csv.DictReader(file)]
    results = out / "results" / "montecarlo"
    return out, {sid: json.loads((results / f"{sid}.json").read_text()) for sid in ids}


def test_every_file_of_the_folder_has_a_case() -> None:
    assert sorted(CASES) == sorted(path.stem for path in FOLDER.glob("*.py"))
    for name, case in CASES.items():   # the docstring says the same as the table here
        text = (FOLDER / f"{name}.py").read_text()
        said = "Full marks: 100." if case.most == 100 else f"Most it may score: {case.most:g}"
        assert said in " ".join(text.split()), name


@pytest.mark.grades(8, jobs=2)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_file_scores_at_most_what_it_earns(graded, name: str) -> None:
    out, results = graded
    case = CASES[name]
    result = results[name]
    report = " ".join((out / "reports" / "montecarlo" / f"{name}.txt").read_text().split())
    items = {test["name"].split(":")[0]: test for test in result["tests"]
             if "max_score" in test}
    if case.most == 100:
        assert result["score"] == 100, report
    assert result["score"] <= case.most, report
    for item in case.loses:
        assert items[item]["score"] < items[item]["max_score"], (item, report)
    for item in case.keeps:
        assert items[item]["score"] == items[item]["max_score"], (item, report)
    for words in case.words:
        assert words in report, (words, report)
    # No check that cannot be made is credited: none is skipped with a note.
    assert not re.search(r"not checked", report), report


PYTHON2 = """import random
import poc_ttt_provided as provided

NTRIALS = 10
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0

def mc_trial(board, player):
    while board.check_win() is None:
        print "move"
        row, col = random.choice(board.get_empty_squares())
        board.move(row, col, player)
        player = provided.switch_player(player)

def mc_update_scores(scores, board, player):
    pass

def get_best_move(board, scores):
    return board.get_empty_squares()[0]

def mc_move(board, player, trials):
    return get_best_move(board, None)
"""


@pytest.mark.grades(1)
def test_a_python2_file_is_judged_by_the_rubric_its_functions_name(tmp_path: Path) -> None:
    """Not by the minimax's: its report names the Monte Carlo assignment, its items, and
    the Python 2 line to change."""
    path = tmp_path / "mc_player.py"
    path.write_text(PYTHON2)
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Assignment: Monte Carlo Tic-Tac-Toe (montecarlo), recognised from the " \
        "functions it defines" in done.stdout
    assert 'line 10: print "move"  -> write print("move")' in done.stdout
    assert "[-20.0 pts] mc_trial: not run" in done.stdout


def test_student_check_takes_the_import_as_provided_as_the_grader_does() -> None:
    """The check imports what the grader imports: the file's own name for the course's
    module, as provided, is the course's module there too (it once said "remove that
    import", which would break the file)."""
    done = subprocess.run([sys.executable, "-m", "student", "check",
                           str(FOLDER / "as_provided.py"), "--no-speed"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "0 failed" in done.stdout


@pytest.mark.grades(1)
def test_a_file_too_large_to_parse_is_named_by_its_functions(tmp_path: Path) -> None:
    """grade reads the start of a file too large to be graded; cut short, it does not
    parse, and its def lines still say it is the minimax (not "defines none of any
    assignment's functions")."""
    path = tmp_path / "mm_player.py"
    path.write_text("def mm_move(board, player):\n    return 0, (-1, -1)\n\n\n"
                    "def move_wrapper(board, player, trials):\n"
                    "    return mm_move(board, player)[1]\n\n\nPAD = '" + "x" * (5 << 20) + "'\n")
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "too large to be the Python source" in done.stdout
    assert "none of any assignment" not in done.stdout
    assert "finished boards: not run" in done.stdout     # the minimax's rubric

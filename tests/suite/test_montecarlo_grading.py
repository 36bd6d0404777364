"""The Monte Carlo assignment graded as an instructor grades it: ``python -m grader``.

Every Monte Carlo file of the assignment's known answers (``grader/assignments/montecarlo/
submissions``: correct ones in six styles, and one file per common bug) is graded by ``python -m grader batch``, which runs ``python -m
grader grade`` for each in its own process (the student's code never runs in the tests'
process). Each correct file gets full marks; each bug loses points in its own function's
item. Randomness never decides a grade: the class graded again, under other student ids,
one at a time, beside two busy processes, gets the same score and the same report (timing
figures aside); a file that draws its randomness from os.urandom, secrets, uuid4 or
SystemRandom too. (That ``python -m student check`` agrees with these grades is
``tests/student/test_agreement.py``'s, on every known answer.)
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
FILES = sorted(SUBMISSIONS.glob("*.py"))
# The item each bug must lose points in (others may follow from it: mc_move uses the rest).
BUG_ITEMS = {
    "bug_counts_empty": "mc_update_scores",
    "bug_full_square": "get_best_move",
    "bug_ignores_score_other": "mc_update_scores",
    "bug_min_not_max": "get_best_move",
    "bug_not_alternating": "mc_trial",
    "bug_trial_on_board": "mc_move",
    "bug_trial_on_copy": "mc_trial",
    "bug_wrong_side": "mc_update_scores",
}
ITEMS = ("mc_trial", "mc_update_scores", "get_best_move", "mc_move", "game play")
FIGURES = re.compile(r"\d+(\.\d+)? s\b|\d+\.\d+ s|about \d+ s|took [\d.]+ s|"
                     r"\d+ calls?|[\d.]+ s (CPU|wall)")

# Randomness drawn otherwise than with random's functions: the grader's seed governs it too.
OTHER_ENTROPY = textwrap.dedent('''
    """A correct player whose random choices come from os.urandom, secrets, uuid and
    SystemRandom: each is made to follow the grader's seed, so its grade is the same."""
    import os
    import random
    import secrets
    import uuid
    from provided import PLAYERO, PLAYERX, DRAW, switch_player

    NTRIALS = 10
    SCORE_CURRENT = 1.0
    SCORE_OTHER = 1.0
    _system = random.SystemRandom()

    def mc_trial(board, player):
        while board.check_win() is None:
            empty = board.get_empty_squares()
            pick = int.from_bytes(os.urandom(4), "little") + uuid.uuid4().int
            row, col = empty[pick % len(empty)]
            board.move(row, col, player)
            player = switch_player(player)

    def mc_update_scores(scores, board, player):
        winner = board.check_win()
        if winner == DRAW:
            return
        sign = 1 if winner == player else -1
        for row in range(board.get_dim()):
            for col in range(board.get_dim()):
                if board.square(row, col) == player:
                    scores[row][col] += sign * SCORE_CURRENT
                elif board.square(row, col) == switch_player(player):
                    scores[row][col] -= sign * SCORE_OTHER

    def get_best_move(board, scores):
        empty = board.get_empty_squares()
        best = max(scores[r][c] for r, c in empty)
        tied = [(r, c) for r, c in empty if scores[r][c] == best]
        return secrets.choice(tied) if len(tied) % 2 else _system.choice(tied)

    def mc_move(board, player, trials):
        dim = board.get_dim()
        scores = [[0.0] * dim for _ in range(dim)]
        for _ in range(trials):
            clone = board.clone()
            mc_trial(clone, player)
            mc_update_scores(scores, clone, player)
        return get_best_move(board, scores)
''')


def batch(folder: Path, out: Path, *extra: str) -> dict[str, dict]:
    """Grade ``folder`` with ``python -m grader batch``; each student's results.json."""
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out",
                           str(out), *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "gradebook.csv", encoding="utf-8-sig") as file:
        ids = [row["student_id"] for row in csv.DictReader(file)]
    return {sid: json.loads((out / "results" / "montecarlo" / f"{sid}.json").read_text())
            for sid in ids}


def items(result: dict) -> dict[str, float]:
    return {test["name"].split(" (")[0].split(":")[0]: test["score"]
            for test in result["tests"] if "max_score" in test}


def report(out: Path, sid: str) -> str:
    """A report with its timing figures masked and its lines joined (a longer file name
    wraps a paragraph otherwise)."""
    return " ".join(FIGURES.sub("#", (out / "reports" / "montecarlo" / f"{sid}.txt").read_text())
                    .split())


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    folder = tmp_path_factory.mktemp("class")
    for path in FILES:
        shutil.copy(path, folder / path.name)
    (folder / "other_entropy.py").write_text(OTHER_ENTROPY)
    out = tmp_path_factory.mktemp("out") / "out"
    return out, batch(folder, out, "--jobs", "2")


@pytest.mark.long
@pytest.mark.grades(15, jobs=2)
def test_the_class_is_graded_as_the_montecarlo_assignment(graded):
    _, results = graded
    assert set(results) == {path.stem for path in FILES} | {"other_entropy"}
    for sid, result in results.items():
        assert {test["name"].split(":")[0] for test in result["tests"]} >= set(ITEMS), sid


@pytest.mark.grades(15, jobs=2)
def test_every_correct_style_gets_full_marks(graded):
    _, results = graded
    correct = [sid for sid in results if sid.startswith("correct_")] + ["other_entropy"]
    assert len(correct) == 7
    for sid in correct:
        assert results[sid]["score"] == 100, (sid, items(results[sid]))


@pytest.mark.grades(15, jobs=2)
@pytest.mark.parametrize("bug, item", sorted(BUG_ITEMS.items()))
def test_each_bug_loses_points_in_its_function(graded, bug, item):
    out, results = graded
    scores = items(results[bug])
    assert results[bug]["score"] < 100
    assert scores[item] < (20 if item in ("mc_trial", "get_best_move") else 25), scores
    text = (out / "reports" / "montecarlo" / f"{bug}.txt").read_text()
    assert f"--- {item} (" in text      # the item's failures are shown, with a call to paste
    assert "random.seed(" in text or "get_best_move(" in text


@pytest.mark.long
@pytest.mark.grades(15, jobs=1)
def test_graded_again_under_load_and_other_ids_the_same(graded, tmp_path):
    """Same code, same score and report: one at a time, beside two busy processes, each
    file under another student id."""
    out, results = graded
    folder = tmp_path / "again"
    folder.mkdir()
    for path in FILES:
        shutil.copy(path, folder / f"x_{path.name}")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        again_out = tmp_path / "out"
        again = batch(folder, again_out, "--jobs", "1")
    finally:
        for process in busy:
            process.kill()
            process.wait()
    for path in FILES:
        first, second = results[path.stem], again[f"x_{path.stem}"]
        assert second["score"] == first["score"], path.stem
        assert items(second) == items(first), path.stem
        mine = report(out, path.stem).replace(path.stem, "FILE")
        theirs = report(again_out, f"x_{path.stem}").replace(f"x_{path.stem}", "FILE")
        assert theirs == mine, path.stem


@pytest.mark.grades(1)
def test_the_unfilled_template_says_what_to_fill_in():
    done = subprocess.run([sys.executable, "-m", "grader", "grade", "student/mc_player.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Assignment: Monte Carlo Tic-Tac-Toe (montecarlo)" in done.stdout
    assert "Score: 0 / 100" in done.stdout
    assert "NotImplementedError" in done.stdout and "not written" in done.stdout.lower()

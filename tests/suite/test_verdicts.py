"""Same code, same score: timing-edge submissions graded again and again, under load.

The gallery (tests/submissions/timing/, each file saying what it should get): correct
solutions with their own course-style winner check, copying with copy.deepcopy at every
node, and with deepcopy and an early return on a win; too slow ones that search every child
twice or check every line through every square of every position twice; a buggy one at
about 60% of the limit, a sleeper and a clock forger (the double search, hiding its clock);
and two near their limits: one at about 0.8 of it with 6 empty squares and 1.5 with 7, one
at about 1.3 to 1.6 with 6.
Each is graded as an instructor would, alone and beside busy processes (a process that burns
a core), and by ``batch --jobs 2``; the scores must be the same every time, and the correct
ones must get full marks every time.

The quick tests (in the default run) grade the cheap files (judged too slow on a few calls,
quick on the rest), and the cheaper of the two near their limits three times beside two
busy processes (tests/benchmarks/bench_stable_verdict.py grades the other ten times beside
0, 1 and 2). The full gallery (``python -m pytest -m slow tests/suite/test_verdicts.py``, about 23
minutes here) grades every file beside 0, 1 and 2 busy processes, twice each, and in a
batch; it is what the numbers in the README's time section come from.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from load import busy  # tests/suite/load.py

HERE = Path(__file__).resolve().parents[1]   # tests/
GALLERY = HERE / "submissions" / "timing"
TOO_SLOW = ("double_recursion", "clock_forger", "recheck_every_line", "borderline_over")
# Quick to grade: judged too slow on a few calls, with few small positions' worth of work
# (recheck_every_line is 20 times the reference on the small positions too: slow gallery).
CHEAP = ("double_recursion", "clock_forger", "sleeper")
CORRECT = {"course_style_wincheck", "deepcopy", "deepcopy_early_return"}
EVERY = sorted(path.stem for path in GALLERY.glob("*.py"))




def grade(name: str, folder: Path, student_id: str | None = None) -> dict:
    out = folder / f"{name}-{student_id or 'x'}.json"
    command = [sys.executable, "-m", "grader", "grade", str(GALLERY / f"{name}.py"),
               "--json", str(out), "--quiet"]
    if student_id:
        command += ["--student-id", student_id]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_every_gallery_file_says_what_it_should_get():
    for name in EVERY:
        assert "Expected:" in (GALLERY / f"{name}.py").read_text(), name
    assert set(CHEAP) | set(TOO_SLOW) | CORRECT | {"buggy_half_limit", "borderline"} == set(EVERY)


@pytest.fixture(scope="module")
def cheap_alone(tmp_path_factory) -> dict:
    """name -> results.json of each cheap gallery file, graded on a quiet machine."""
    out = tmp_path_factory.mktemp("cheap")
    return {name: grade(name, out) for name in CHEAP}


@pytest.mark.long
@pytest.mark.slow    # the same grades again beside two busy loops (test_same_report does it
@pytest.mark.timeout(1800)   # in the default run for an endless loop)
def test_the_cheap_gallery_gets_the_same_score_alone_and_beside_two_busy_processes(
        cheap_alone, tmp_path):
    alone = cheap_alone
    with busy(2):
        loaded = {name: grade(name, tmp_path, "loaded") for name in CHEAP}
    for name in CHEAP:
        assert loaded[name]["score"] == alone[name]["score"], name
        assert loaded[name]["extra_data"]["too_slow"] == alone[name]["extra_data"]["too_slow"]


@pytest.mark.long
@pytest.mark.grades(len(CHEAP))
def test_the_cheap_gallery_verdicts(cheap_alone):
    alone = cheap_alone
    # Far too slow, judged on a few calls, not on hundreds of timeouts.
    for name in ("double_recursion", "clock_forger"):
        extra = alone[name]["extra_data"]
        assert "3x3 positions with 6 empty squares (normal game)" in extra["too_slow"]
        assert extra["timeouts"] <= 6 and not extra["timing"]["budget_exhausted"]
    # The forgery changes nothing: the same verdicts as the honest double search.
    assert alone["clock_forger"]["score"] == alone["double_recursion"]["score"]
    assert (alone["clock_forger"]["extra_data"]["too_slow"]
            == alone["double_recursion"]["extra_data"]["too_slow"])
    assert alone["sleeper"]["score"] == 0
    # Its calls sleep: the report's lead says they waited, not "an endless loop?".
    lead = " ".join(alone["sleeper"]["output"].split("\n\n")[1].split())
    assert lead.startswith("mm_move's calls waited without computing"), lead
    assert "judged by the time policy" in lead and "endless loop" not in lead


@pytest.mark.long
@pytest.mark.grades(3)
def test_a_file_near_its_limits_gets_one_score_beside_two_busy_processes(tmp_path):
    # Its deciding calls take 1.3 to 1.6 times their limits (6 empty squares), so each is
    # decided by careful rounds; beside two busy processes (every core taken), three grades
    # give one score and the same tiers too slow.
    with busy(2):
        runs = [grade("borderline_over", tmp_path, f"b{run}") for run in range(3)]
    assert len({results["score"] for results in runs}) == 1, [r["score"] for r in runs]
    assert len({tuple(results["extra_data"]["too_slow"]) for results in runs}) == 1
    assert runs[0]["extra_data"]["too_slow"] == [
        f"{size} positions with 6 empty squares ({mode} game)"
        for size in ("3x3", "4x4") for mode in ("normal", "reverse")]
    assert all(results["extra_data"]["timing"]["careful_measurements"] >= 4 for results in runs)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name", EVERY)
def test_the_same_score_beside_0_1_and_2_busy_processes(name, tmp_path):
    scores = []
    for processes in (0, 1, 2):
        with busy(processes):
            for run in range(2):
                results = grade(name, tmp_path, f"s{processes}{run}")
                scores.append(results["score"])
                assert not results["extra_data"]["timing"]["budget_exhausted"], name
                if name in TOO_SLOW:
                    assert ("3x3 positions with 6 empty squares (normal game)"
                            in results["extra_data"]["too_slow"]), name
    assert len(set(scores)) == 1, scores
    if name in CORRECT:
        assert scores[0] == 100


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_same_scores_in_a_batch_with_two_jobs_and_for_any_student_id(tmp_path):
    classroom = tmp_path / "class"
    classroom.mkdir()
    for name in EVERY:
        shutil.copy(GALLERY / f"{name}.py", classroom / f"{name}.py")
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(classroom), "--out",
                           str(tmp_path / "grades"), "--jobs", "2", "--quiet"],
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(tmp_path / "grades" / "gradebook.csv", encoding="utf-8-sig") as file:
        batch = {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)}
    for name in EVERY:
        alone = grade(name, tmp_path, "1002")["score"]
        other = grade(name, tmp_path, "bob")["score"]
        assert batch[name] == alone == other, name

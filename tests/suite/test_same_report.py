"""Same code, same report: not only the score, but what the report says.

The kind of each failure ("stuck", "timeout", "too slow", "crash"...), the tiers judged too
slow, what was not run, and every line of the report the student reads must be the same on
every run, alone and beside busy processes; only times may differ (a limit of 0.96 s on one
run is 1.13 s on a busier one), and the footer that says what the run cost. An endless
loop, a sleeper and a correct solution far too slow from 6 empty squares on are graded
alone, then beside two processes that each burn a core.

The quick test (in the default run) grades the endless loop twice; the slow ones
(``python -m pytest -m slow tests/suite/test_same_report.py``, a few minutes) the sleeper
and the double recursion.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from load import busy  # tests/suite/load.py

HERE = Path(__file__).resolve().parents[1]   # tests/
LOOP = HERE / "submissions" / "grader" / "bug_infinite_loop.py"
SLEEPER = HERE / "submissions" / "timing" / "sleeper.py"
DOUBLE = HERE / "submissions" / "timing" / "double_recursion.py"

SECONDS = re.compile(r"\d[\d,]*(\.\d+)? ?s\b")
# What a run cost, how the limits were timed on it and the sandbox it ran in: machine
# facts, not verdicts. They open the report's footer, where only the tiers too slow and
# the calls not run are verdicts; a section ("--- item") ends the footer.
MACHINE = re.compile(r"^(student code|time limits|isolation|budget|grader's own)\b")
VERDICT = re.compile(r"^(too slow|the time budget)")
SECTION = re.compile(r"^-{3}")




def grade(path: Path, folder: Path, tag: str) -> tuple[str, dict]:
    """(the report as the student reads it, results.json) of one grade."""
    out = folder / f"{path.stem}-{tag}.json"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--json",
                           str(out)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads(out.read_text())


def report_text(report: str) -> list[str]:
    r"""The report without its times and the paragraphs about the machine.

    >>> report_text("Score: 1\ntime limits: 5 x (3 times\non this run: 2)\ntoo slow: a\n")
    ['Score: 1', 'too slow: a']
    """
    kept, machine = [], False
    for line in report.splitlines():
        if MACHINE.match(line):
            machine = True
        elif SECTION.match(line):
            machine = False
        if not machine or VERDICT.match(line):
            kept.append(SECONDS.sub("# s", line))
    return kept


def verdicts(results: dict) -> dict:
    """What results.json says about the submission: scores, each item's checks and the
    kinds of its failures, the tiers too slow, the calls not run, and every failure's
    kind, call and answer (with times left out of the words)."""
    extra = results["extra_data"]
    return {
        "score": results["score"],
        "tests": [(t["name"], t["score"], t["status"]) for t in results["tests"]],
        "items": [(item["name"], item["passed"], item["total"], item["no_answer"],
                   item.get("categories"),
                   [(f["category"], f["call"], f["received"], SECONDS.sub("# s", f["why"]),
                     SECONDS.sub("# s", f["expected"])) for f in item["failures"]])
                  for item in extra["items"]],
        "too_slow": extra["too_slow"],
        "not_run": extra["not_run"],
        "timeouts": extra["timeouts"],
        "load_error": extra["load_error"],
        "grader_error": extra["grader_error"],
    }


def assert_same(path: Path, folder: Path) -> dict:
    """Grade ``path`` alone, then beside two busy processes: the same report. Returns
    the results.json of the first."""
    alone = grade(path, folder, "alone")
    with busy(2):
        loaded = grade(path, folder, "busy")
    assert report_text(loaded[0]) == report_text(alone[0]), path.name
    assert verdicts(loaded[1]) == verdicts(alone[1]), path.name
    assert not alone[1]["extra_data"]["timing"]["budget_exhausted"]
    return alone[1]


@pytest.mark.long
@pytest.mark.grades(2)
def test_an_endless_loop_gets_the_same_report_alone_and_beside_two_busy_processes(tmp_path):
    results = assert_same(LOOP, tmp_path)
    categories = {f["category"] for item in results["extra_data"]["items"]
                  for f in item["failures"]}
    # Stuck where a search takes milliseconds: never "too slow", never a "crash".
    assert "stuck" in categories and not categories & {"too slow", "crash", "timeout"}
    # It computes: the lead keeps its guess, and says nothing of waiting.
    assert "did not return (an endless loop?) on" in results["output"]
    assert "waited without computing" not in results["output"]


@pytest.mark.slow
@pytest.mark.grades(2)
@pytest.mark.parametrize("path", [SLEEPER, DOUBLE], ids=lambda path: path.stem)
def test_the_same_report_alone_and_beside_two_busy_processes(path, tmp_path):
    assert_same(path, tmp_path)

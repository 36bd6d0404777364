"""grader.classroom.priority: grading runs below the web process's CPU priority, and a grade
at a lower priority is the same grade.

The reference is timed in the student's worker before the student's file is loaded into it
(grader.sandbox.box), so the priority the file sees when it is imported is the priority the
reference was timed at: both are the grade's.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from grader.classroom import priority, run, warm
from grader.classroom.run import GradingOptions, run_grade

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getscheduler"),
                                reason="no process priorities here (not Linux)")

CONSTANT = Path(__file__).resolve().parents[1] / "submissions" / "batch" / "constant.py"
# A wrong but fast submission that says, when imported, the CPU priority it runs at.
SAYS_PRIORITY = ("import os\n\nprint(f\"nice={os.getpriority(os.PRIO_PROCESS, 0)} "
                 "policy={os.sched_getscheduler(0)}\")\n\n" + CONSTANT.read_text(encoding="utf-8"))


def test_lowering_changes_the_calling_thread_only() -> None:
    before = os.getpriority(os.PRIO_PROCESS, 0)
    found: list[priority.Priority] = []
    thread = threading.Thread(target=lambda: found.append(priority.lower(10)))
    thread.start()
    thread.join()
    assert found[0].nice == max(10, before)
    assert found[0] == priority.probe(10)
    assert os.getpriority(os.PRIO_PROCESS, 0) == before       # this thread kept its own
    assert priority.describe(10) == ("grading at a lower CPU priority than the page "
                                     f"({found[0].describe()})")


def test_a_cold_grade_starts_at_the_priority_it_asks_for() -> None:
    said = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0), "
                               "os.sched_getscheduler(0))"],
        capture_output=True, text=True, check=True,
        preexec_fn=functools.partial(run._start_cold, os.getpid(), 10)).stdout.split()
    expected = priority.probe(10)
    assert int(said[0]) == expected.nice
    assert (int(said[1]) == os.SCHED_BATCH) == expected.batch


AUTOGROUP = Path("/proc/self/autogroup")


@pytest.mark.skipif(not AUTOGROUP.exists(), reason="no autogroup scheduling on this kernel")
def test_a_lowered_grade_in_its_own_session_lowers_its_session_and_the_page_keeps_its_own(
        ) -> None:
    # Linux shares the CPU between sessions first (autogroup), and a new session starts at
    # nice 0: a grade at nice 10 in a session of its own must lower its session too, or it
    # takes as much CPU as the web process. A thread of the page never lowers the page's.
    before = AUTOGROUP.read_text()
    said = subprocess.run(
        [sys.executable, "-c", "print(open('/proc/self/autogroup').read())"],
        capture_output=True, text=True, check=True, start_new_session=True,
        preexec_fn=functools.partial(run._start_cold, os.getpid(), 10)).stdout
    assert said.split()[-1] == str(priority.probe(10).nice)
    # The page's own process, leading its session (as serve does under systemd or a
    # shell): its grading threads lower themselves, never its session.
    said = subprocess.run(
        [sys.executable, "-c", "import threading; from grader.classroom import priority; "
         "thread = threading.Thread(target=priority.probe, args=(10,)); thread.start(); "
         "thread.join(); print(open('/proc/self/autogroup').read())"],
        capture_output=True, text=True, check=True, start_new_session=True).stdout
    assert said.split()[-1] == "0"
    assert AUTOGROUP.read_text() == before


@pytest.mark.grades(2)
def test_a_grade_and_its_sandbox_run_lower_and_score_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    submission = tmp_path / "says_priority.py"
    submission.write_text(SAYS_PRIORITY, encoding="utf-8")
    monkeypatch.delenv(warm.COLD_VARIABLE, raising=False)
    lower = run_grade(submission, "s", GradingOptions(), tmp_path / "lower", nice=10)
    monkeypatch.setenv(warm.COLD_VARIABLE, "1")
    same = run_grade(submission, "s", GradingOptions(), tmp_path / "same")
    assert (lower.warm, same.warm) == (warm.fork_available(), False)
    lowered, ordinary = json.loads(lower.results or "{}"), json.loads(same.results or "{}")
    expected = priority.probe(10)
    batch = os.SCHED_BATCH if expected.batch else os.SCHED_OTHER
    assert lowered["extra_data"]["load_output"].split() == [f"nice={expected.nice}",
                                                            f"policy={batch}"]
    assert ordinary["extra_data"]["load_output"].split() == [
        f"nice={os.getpriority(os.PRIO_PROCESS, 0)}", f"policy={os.sched_getscheduler(0)}"]
    assert lowered["score"] == ordinary["score"]
    assert [(t["name"], t["score"]) for t in lowered["tests"]] == \
        [(t["name"], t["score"]) for t in ordinary["tests"]]

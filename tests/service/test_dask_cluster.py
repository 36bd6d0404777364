"""The submission page on a real Dask cluster, started as docs/deploy/cluster.md says: a
``dask scheduler`` and two ``dask worker`` processes (the test extra's dask[distributed]),
``grader serve --scheduler``, a small rush of both assignments, and one worker killed with
SIGKILL in the middle of a grade.

What must hold: every hand-in is graded once (one result, one attempt, nothing in its
student's history twice), each with the score ``grade`` gives its file (the assignments'
known answers, whose expected.json tests/test_known_answers.py checks against ``grade``),
and the grade that was running on the killed worker ended with it (no process left behind)
and was finished on the other.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("httpx")

from dask_cluster import DASK, Cluster, local_cluster  # noqa: E402
from processes import grades_under, wait_gone  # noqa: E402
from service_helpers import ROOT, Server, add_students  # noqa: E402

KNOWN = ROOT / "grader" / "assignments"
# (assignment, known answer): the minimax's first, so that the first grades take a while.
HAND_INS = [("minimax", "correct_pruned.py"), ("montecarlo", "correct_course_style.py"),
            ("minimax", "bug_no_clone.py"), ("montecarlo", "bug_full_square.py"),
            ("minimax", "correct_pruned.py"), ("montecarlo", "correct_clone.py")]
FILE_NAMES = {"minimax": "mm_player.py", "montecarlo": "mc_player.py"}


def expected_score(assignment: str, name: str) -> float:
    expected = json.loads((KNOWN / assignment / "submissions" / "expected.json").read_text())
    return float(expected[name]["score"])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """``dask scheduler`` and two ``dask worker``s on 127.0.0.1, as the recipe says."""
    if not DASK.exists():
        pytest.skip(f"no {DASK}: install the test extra (dask[distributed])")
    with local_cluster(tmp_path / "dask", workers=2) as running:
        yield running


def kill_a_worker_in_a_grade(cluster: Cluster, seconds: float) -> tuple[int, list[int]]:
    """SIGKILL the first worker seen running a grade: (its pid, the grades it ran)."""
    deadline = time.monotonic() + seconds
    pids = list(cluster.worker_pids().values())
    while time.monotonic() < deadline:
        for pid in pids:
            grading = grades_under(pid)
            if grading:
                os.kill(pid, signal.SIGKILL)
                return pid, grading
        time.sleep(0.05)
    raise AssertionError(f"no worker was seen grading within {seconds:g} s")


@pytest.mark.long
@pytest.mark.grades(len(HAND_INS), jobs=2)
def test_a_worker_killed_in_a_grade_loses_nothing_and_doubles_nothing(
        cluster: Cluster, serve: Any, tmp_path: Path, load_factor: float) -> None:
    data = tmp_path / "course"
    students = [f"s{number}" for number in range(len(HAND_INS))]
    add_students(data, [(student, f"Student {student}", "") for student in students])
    server: Server = serve(data, "--scheduler", cluster.address, "--jobs", "2", "--per-hour", "0",
                           "--assignment", "minimax", "--assignment", "montecarlo")
    numbers = {}
    for student, (assignment, name) in zip(students, HAND_INS):
        with server.client(student) as api:
            source = (KNOWN / assignment / "submissions" / name).read_bytes()
            answer = api.post("/api/submissions", data={"assignment": assignment},
                              files={"file": (FILE_NAMES[assignment], source)})
            assert answer.status_code == 201, answer.text
            numbers[student] = answer.json()["id"]

    killed, grading = kill_a_worker_in_a_grade(cluster, 60 * load_factor)
    # The grade ends with its worker (the warm grader and its grade die with the worker's
    # thread): nothing of it keeps running.
    assert wait_gone(grading, 30 * load_factor) == []

    finals = {}
    for student, number in numbers.items():
        with server.client(student) as api:
            finals[student] = server.wait_done(api, number, 240 * load_factor)
            history = api.get("/api/submissions").json()["submissions"]
        assert [one["id"] for one in history] == [number]            # nothing doubled
    for student, (assignment, name) in zip(students, HAND_INS):
        final = finals[student]
        assert (final["status"], final["score"]) == ("done", expected_score(assignment, name)), \
            (student, assignment, name, final.get("error"))
    database = sqlite3.connect(data / "course.sqlite3")
    try:
        rows = database.execute("SELECT id, status, attempts, assignment FROM submissions "
                                "ORDER BY id").fetchall()
        earlier = database.execute("SELECT COUNT(*) FROM earlier_results").fetchone()[0]
    finally:
        database.close()
    assert [(status, attempts, assignment) for _, status, attempts, assignment in rows] == \
        [("done", 1, assignment) for assignment, _ in HAND_INS]       # each graded once
    assert earlier == 0
    assert killed not in cluster.worker_pids().values()
    # The start line says the grading runs' priority (grader.classroom.priority).
    assert "grading at a lower CPU priority than the page (nice 10" in server.log.read_text()

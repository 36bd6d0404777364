"""The benchmarks' ``batch`` on the same files as a served course, and what to compare: each
assignment's throughput in a rush, and one grade's own time on the server and in batch,
measured the same way on both sides. A module bench_service.py and bench_semester.py import;
not a benchmark and not a test.

    wall, scores, runs = batch(folder, out, jobs=2, assignment="montecarlo")
    compare_runs(course_folder, batch_out, ["minimax", "montecarlo"])
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(PROJECT))           # the project's grader, wherever this runs from

from grader.classroom.priority import NICE_VARIABLE, serving_nice  # noqa: E402


def batch(folder: Path, out: Path, jobs: int, assignment: str | None = None
          ) -> tuple[float, dict[str, float], list[float]]:
    """batch's wall time on the same files, its score for each student and each run's wall
    (``--assignment`` when given: batch grades a folder as one assignment). Its grading runs
    have the CPU priority the page's have (``TTT_GRADER_NICE``, grader.classroom.priority):
    on a machine others use too, a lower priority is a slower grade, on both sides alike."""
    started = time.monotonic()
    chosen = ["--assignment", assignment] if assignment else []
    nice = {NICE_VARIABLE: str(serving_nice())}
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out),
                    "--jobs", str(jobs), "--quiet", *chosen], cwd=PROJECT, check=False,
                   timeout=24 * 3600, env={**os.environ, **nice})
    wall = time.monotonic() - started
    with open(out / "gradebook.csv", encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    scores = {row["student_id"]: float(row["score"] or "nan") for row in rows}
    return wall, scores, [float(row["wall_seconds"]) for row in rows if row["wall_seconds"]]


def batch_each(folder: Path, out: Path, jobs: int, counts: dict[str, int]
               ) -> tuple[float, dict[str, float], list[float]]:
    """``batch`` once per assignment on that assignment's files (``folder``/NAME: batch
    grades a folder as one assignment; ``counts``: how many files each has): the walls
    added up, every student's score, every run's wall."""
    wall, scores, runs = 0.0, {}, []
    for assignment, count in counts.items():
        if not count:
            continue
        own_wall, own_scores, own_runs = batch(folder / assignment, out / assignment, jobs,
                                               assignment)
        print(f"  batch --assignment {assignment} --jobs {jobs} on its {count} files: "
              f"{own_wall:.0f} s: {60 * count / own_wall:.1f} per minute; a grade's own "
              f"wall_seconds mean {statistics.mean(own_runs or [0.0]):.2f} s", flush=True)
        wall, runs = wall + own_wall, runs + own_runs
        scores.update(own_scores)
    return wall, scores, runs


def iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def show_throughput(graded: list[Any], assignments: list[str]) -> None:
    """Each assignment's share of the rush: how many graded between its first start and its
    last finish, and its mean grading run (both assignments share the same grading slots).
    ``graded``: the benchmark's students, each with ``assignment`` and its final ``final``
    JSON (started_at, finished_at)."""
    for assignment in assignments:
        own = [s for s in graded if s.assignment == assignment
               and s.final.get("started_at") and s.final.get("finished_at")]
        if not own:
            continue
        first = min(iso(s.final["started_at"]) for s in own)
        last = max(iso(s.final["finished_at"]) for s in own)
        span = max((last - first).total_seconds(), 1e-9)
        runs = [(iso(s.final["finished_at"]) - iso(s.final["started_at"])).total_seconds()
                for s in own]
        print(f"  {assignment}: {len(own)} graded in {span:.0f} s ({60 * len(own) / span:.1f} "
              f"per minute, the other assignment grading beside it); one run, mean wall "
              f"{statistics.mean(runs):.2f} s")


def server_runs(data: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Each assignment's grading runs on the server (its course folder ``data``): the whole
    run's wall (the queue's ``seconds``: ``python -m grader grade`` from its start to its
    exit) and the grade's own (results.json's ``wall_seconds``), as batch's gradebook has."""
    runs: dict[str, tuple[list[float], list[float]]] = {}
    with sqlite3.connect(data / "course.sqlite3", timeout=30) as db:
        for assignment, seconds, results in db.execute(
                "SELECT assignment, seconds, results_json FROM submissions WHERE status = "
                "'done' AND regrade = 0"):
            whole, own = runs.setdefault(assignment, ([], []))
            whole.append(float(seconds or 0.0))
            try:
                own.append(float(json.loads(results)["extra_data"]["wall_seconds"]))
            except (TypeError, ValueError, KeyError):
                continue
    return runs


def compare_runs(data: Path, batch_out: Path, assignments: list[str | None]) -> None:
    """One grade's own time (results.json's ``wall_seconds``, from the grade's start to
    its report) on the server and in batch, per assignment (None: batch's out folder is
    the whole class)."""
    served = server_runs(data)
    for assignment in assignments:
        out = batch_out / assignment if assignment else batch_out
        try:
            with open(out / "gradebook.csv", encoding="utf-8-sig", newline="") as handle:
                batched = [float(row["wall_seconds"]) for row in csv.DictReader(handle)
                           if row["wall_seconds"]]
        except OSError:
            continue
        whole, own = served.get(assignment or "minimax", ([], []))
        if not batched or not own:
            continue
        ratio = statistics.mean(own) / statistics.mean(batched)
        print(f"  {assignment or 'a'} grade's own wall (results' wall_seconds): server mean "
              f"{statistics.mean(own):.2f} s (median {statistics.median(own):.2f}), batch "
              f"mean {statistics.mean(batched):.2f} s (median {statistics.median(batched):.2f})"
              f": {ratio:.0%} of batch's; the server's whole run (start to exit) mean "
              f"{statistics.mean(whole):.2f} s")

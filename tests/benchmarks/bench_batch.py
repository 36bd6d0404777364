"""Batch grading throughput, and the grader's fixed cost per grade in a batch.

    python tests/benchmarks/bench_batch.py [N [FILE]] [--jobs 1 2] [--rounds R] [--vs TREE]

Grades N (default 6) copies of FILE under different ids (default: a correct plain minimax
with early exit, tests/submissions/batch/correct.py) with ``python -m grader batch`` at each
``--jobs`` (default 1 and 2), each into a fresh output folder, and one copy with ``python -m
grader grade`` (the median of three). Every copy is asked the same positions, as every
student is.

Prints submissions per minute, the speed-up of two jobs over one, the batch's overhead per
submission against grading the file directly (--jobs 1 per submission minus one direct
grade), and the grader's fixed cost per grade: the batch's wall time times its jobs, less
the students' own CPU time (each result's ``student_cpu_seconds``), over N; all in wall time
(time.perf_counter) and in the CPU time of the batch and grader processes (os.times of the
children: steadier on a busy machine; the sandboxed student code is not in it, its
processes end inside their own pid namespace).

``--vs TREE`` (another checkout of the project, e.g. the last release's) runs the same
batches with that tree's grader too, alternating with this one's (A B B A ...), and prints
each run and the medians side by side: compare two versions in the same run, never with a
figure from another day. ``--rounds`` runs each batch that many times (default 1).

Named bench_*.py so that pytest does not collect it. The issue's figure, the fixed cost in
a batch of 12 pruned files: ``bench_batch.py 12 tests/submissions/grader/correct_pruned.py
--jobs 1 --rounds 3``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
CORRECT = PROJECT / "tests" / "submissions" / "batch" / "correct.py"


def timed(command: list[str], tree: Path = PROJECT) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of the processes the command started and reaped
    (run in ``tree``, with its grader first on the path)."""
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    seconds = time.perf_counter() - started
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return seconds, cpu


def students_cpu(out: Path) -> float:
    """The students' own CPU time, every result of a batch's output folder together."""
    return sum(json.loads(path.read_text(encoding="utf-8"))["extra_data"]["student_cpu_seconds"]
               for path in (out / "results").rglob("*.json"))   # either layout (--vs a tree)


def one_batch(source: Path, out: Path, jobs: int, count: int, tree: Path) -> dict[str, float]:
    """One batch: its wall and grader CPU, the students' CPU, and the fixed cost per grade."""
    wall, cpu = timed([sys.executable, "-m", "grader", "batch", str(source), "--out", str(out),
                       "--jobs", str(jobs), "--quiet"], tree)
    done = len(list((out / "results").rglob("*.json")))
    assert done == count, f"{done} results of {count}"
    students = students_cpu(out)
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "cpu": cpu, "students": students,
            "fixed": (wall * jobs - students) / count, "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=6)
    parser.add_argument("submission", nargs="?", type=Path, default=CORRECT)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--vs", type=Path, metavar="TREE",
                        help="another checkout of the project, run alternately")
    args = parser.parse_args(argv)
    count, submission = args.count, args.submission.resolve()
    trees = {"this": PROJECT, **({"vs": args.vs.resolve()} if args.vs else {})}
    work = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    try:
        source = work / "class"
        source.mkdir()
        for index in range(count):
            shutil.copy(submission, source / f"student{index:02d}.py")
        print(f"{count} copies of {submission.name}; {os.cpu_count()} cores; Python "
              f"{sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}"
              + (f"; this tree against {args.vs}" if args.vs else ""))
        singles = sorted(timed([sys.executable, "-m", "grader", "grade",
                                str(source / "student00.py"), "--quiet",
                                "--json", str(work / "single.json")]) for _ in range(3))
        single, single_cpu = singles[1]
        print(f"  python -m grader grade, one file: {single:6.1f} s wall, {single_cpu:6.1f} s "
              "grader CPU (median of 3)")
        runs: dict[tuple[str, int], list[dict[str, float]]] = {}
        for number in range(args.rounds):
            order = list(trees) if number % 2 == 0 else list(reversed(trees))
            for jobs in args.jobs:
                for name in order:
                    found = one_batch(source, work / f"out-{name}-{jobs}", jobs, count,
                                      trees[name])
                    runs.setdefault((name, jobs), []).append(found)
                    print(f"  {name:4} batch --jobs {jobs}: {found['wall']:6.1f} s wall, "
                          f"{count / found['wall'] * 60:5.1f} per minute, "
                          f"{found['cpu'] / count:5.2f} s grader CPU a submission; the "
                          f"students' CPU {found['students']:6.1f} s; fixed cost "
                          f"{found['fixed']:5.2f} s a grade (load {found['load']:.1f})",
                          flush=True)
        print("medians:")
        for (name, jobs), found in runs.items():
            wall = statistics.median(one["wall"] for one in found)
            print(f"  {name:4} --jobs {jobs}: {wall:6.1f} s wall, "
                  f"{statistics.median(one['cpu'] for one in found) / count:5.2f} s grader "
                  f"CPU a submission, fixed cost "
                  f"{statistics.median(one['fixed'] for one in found):5.2f} s a grade")
        this = {jobs: statistics.median(one["wall"] for one in runs[("this", jobs)])
                for jobs in args.jobs}
        if 1 in this and 2 in this:
            print(f"  speed-up of --jobs 2 over --jobs 1: {this[1] / this[2]:.2f}x")
        if 1 in this:
            cpu = statistics.median(one["cpu"] for one in runs[("this", 1)])
            print(f"  batch overhead per submission against one direct grade: "
                  f"{this[1] / count - single:+.2f} s wall (--jobs 1), "
                  f"{cpu / count - single_cpu:+.2f} s grader CPU")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

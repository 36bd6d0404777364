"""Batch grading throughput: run ``python tests/benchmarks/bench_batch.py [N [FILE]]``.

Grades N (default 6) copies of FILE under different ids (default: a correct
plain minimax with early exit, tests/submissions/batch/correct.py) with
``python -m grader batch`` at ``--jobs 1`` and ``--jobs 2``, each into a fresh
output folder, and one copy with ``python -m grader grade`` (the median of
three). Every copy is asked the same positions, as every student is.

Prints submissions per minute, the speed-up of two jobs over one, and the
batch's overhead per submission against grading the file directly (--jobs 1
per submission minus one direct grade), in wall time (time.perf_counter) and
in the CPU time of the batch and grader processes (os.times of the children:
steadier on a busy machine; the sandboxed student code is not in it, its
processes end inside their own pid namespace). Named bench_*.py so that
pytest does not collect it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
CORRECT = PROJECT / "tests" / "submissions" / "batch" / "correct.py"
sys.path.insert(0, str(PROJECT / "tests"))

from test_batch import GRADER  # noqa: E402  (`python -m grader`, or its stand-in)


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of the processes the command started and reaped."""
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=PROJECT)
    seconds = time.perf_counter() - started
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return seconds, cpu


def main(count: int = 6, submission: Path = CORRECT) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    try:
        source = work / "class"
        source.mkdir()
        for index in range(count):
            shutil.copy(submission, source / f"student{index:02d}.py")
        print(f"{count} copies of {submission.name}; "
              f"{os.cpu_count()} cores; Python {sys.version.split()[0]}")

        singles = sorted(timed([sys.executable, "-m", "grader", "grade",
                                str(source / "student00.py"), "--quiet",
                                "--json", str(work / "single.json")]) for _ in range(3))
        single, single_cpu = singles[1]
        print(f"  python -m grader grade, one file: {single:6.1f} s wall, {single_cpu:6.1f} s "
              "grader CPU (median of 3)")
        walls, cpus = {}, {}
        for jobs in (1, 2):
            out = work / f"out{jobs}"
            walls[jobs], cpus[jobs] = timed([*GRADER, "batch", str(source), "--out", str(out),
                                             "--jobs", str(jobs), "--quiet"])
            done = len(list((out / "results").glob("*/*.json")))
            assert done == count, f"{done} results of {count}"
            print(f"  batch --jobs {jobs}: {walls[jobs]:6.1f} s wall, "
                  f"{walls[jobs] / count:5.2f} s wall and {cpus[jobs] / count:5.2f} s grader CPU "
                  f"per submission, {count / walls[jobs] * 60:5.1f} submissions per minute")
        print(f"  speed-up of --jobs 2 over --jobs 1: {walls[1] / walls[2]:.2f}x")
        print(f"  batch overhead per submission against one direct grade: "
              f"{walls[1] / count - single:+.2f} s wall (--jobs 1), "
              f"{cpus[1] / count - single_cpu:+.2f} s grader CPU")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6,
         Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else CORRECT)

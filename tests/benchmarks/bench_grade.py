"""The cost of a full default grade, against the student's own CPU time.

Grades the correct plain minimax (clone at every step, no pruning) exactly as an
instructor would (``python -m grader grade FILE --json PATH``) and prints the
run's wall time, the student's CPU time in the sandbox (what a class pays, per
student), and our overhead: the difference, as a share of the student's time (the
aim: under 20%).

    python tests/benchmarks/bench_grade.py [--repeats N] [SUBMISSION]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAIN = Path(__file__).resolve().parent.parent / "submissions" / "grader" / "correct_plain.py"


def grade_once(submission: Path) -> tuple[float, float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "grade", str(submission), "--json",
                        str(out), "--quiet"], check=True, capture_output=True)
        wall = time.perf_counter() - start
        extra = json.loads(out.read_text())["extra_data"]
    return wall, extra["student_cpu_seconds"], extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", nargs="?", type=Path, default=PLAIN)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs = [grade_once(args.submission) for _ in range(args.repeats)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    extra = runs[-1][2]
    print(f"full default grade of {args.submission.name} (median of {args.repeats}):")
    print(f"  wall time of the command   {wall:7.2f} s")
    print(f"  student's CPU time         {cpu:7.2f} s   ({extra['calls']} calls; what each "
          "student of a class costs)")
    reference = extra["timing"]["reference_empty_board_seconds"]
    print(f"  the reference, empty board {reference:7.2f} s   (a plain minimax on a course-style "
          "board, timed in the sandbox)")
    print(f"  overhead (wall - student)  {wall - cpu:7.2f} s   = {(wall - cpu) / cpu:.0%} "
          "of the student's time (aim: under 20%)")
    print(f"  isolation: {', '.join(extra['isolation'])}")


if __name__ == "__main__":
    main()

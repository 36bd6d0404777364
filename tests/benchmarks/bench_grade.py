"""The grader's own cost per grade, cold and warm, against the student's CPU time.

Grades each file as ``batch``, the Dask workers and ``grader serve`` do
(``grader.classroom.run.run_grade``: ``python -m grader grade FILE --json PATH``), cold (a
fresh process each time, ``TTT_GRADER_COLD=1``) and warm (forked by a preloaded warm server,
``grader.classroom.warm``; started once before the timed grades, its start shown apart).
The two alternate, so that a change in the machine's load hits both alike. For each it
prints the medians of: the grade's wall time, the student's CPU time in the sandbox
(extra_data's ``student_cpu_seconds``: what a class pays, per student), and the grader's
fixed cost (wall minus the student's CPU), also as a share of the student's time; and the
CPU seconds the grade's own process used (steadier than wall time on a busy machine; cold:
``os.times`` of our children, warm: the server's reaped children, from /proc). Defaults: the pruned correct file
(the grader's cost is most of it) and the plain one (the issue's "overhead" figure).
The machine's load (uptime) is printed before and after: other workers share it.

    python tests/benchmarks/bench_grade.py [--repeats N] [SUBMISSION ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
sys.path.insert(0, str(PROJECT))   # the project's grader, wherever this runs from

from grader.classroom import warm  # noqa: E402
from grader.classroom.run import GradingOptions, run_grade  # noqa: E402

SUBMISSIONS = PROJECT / "tests" / "submissions" / "grader"
DEFAULTS = [SUBMISSIONS / "correct_pruned.py", SUBMISSIONS / "correct_plain.py"]


def load() -> str:
    return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def children_cpu(pid: int) -> float:
    """The CPU seconds of ``pid``'s reaped children (cutime + cstime of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat", "rb") as file:
        fields = file.read().rpartition(b")")[2].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def grade_once(submission: Path, cold: bool, scratch: Path) -> tuple[float, float, float]:
    """(wall seconds, student CPU seconds, CPU seconds of the grade's own process)."""
    if cold:
        os.environ[warm.COLD_VARIABLE] = "1"
    else:
        os.environ.pop(warm.COLD_VARIABLE, None)
    server = None if cold else warm.server_for(dict(os.environ))
    before = os.times()
    server_before = 0.0 if server is None else children_cpu(server._process.pid)
    started = time.perf_counter()
    attempt = run_grade(submission, submission.stem, GradingOptions(), scratch, slot=0)
    wall = time.perf_counter() - started
    after = os.times()
    if attempt.returncode != 0 or attempt.results is None or attempt.warm is cold:
        sys.exit(f"the grade failed ({attempt.returncode}, warm={attempt.warm}): "
                 f"{attempt.errors[-2000:]}")
    extra = json.loads(attempt.results)["extra_data"]
    own = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    if server is not None:   # the server reaps the grade just after we read its status
        deadline = time.monotonic() + 2
        while (own := children_cpu(server._process.pid) - server_before) == 0 \
                and time.monotonic() < deadline:
            time.sleep(0.01)
    return wall, extra["student_cpu_seconds"], own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="*", type=Path, default=DEFAULTS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; {load()}")
    os.environ.pop(warm.COLD_VARIABLE, None)
    started = time.perf_counter()
    warm.server_for(dict(os.environ))
    print(f"warm server started in {time.perf_counter() - started:.2f} s (once per --jobs slot)")
    with tempfile.TemporaryDirectory() as tmp:
        for submission in args.submissions:
            runs: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
            for number in range(args.repeats):
                for cold in (True, False):
                    scratch = Path(tmp) / f"{submission.stem}-{cold}-{number}"
                    runs[cold].append(grade_once(submission, cold, scratch))
            print(f"\n{submission.name}: median of {args.repeats} grades each")
            print(f"  {'':5s} {'wall':>7s} {'student CPU':>12s} {'fixed cost':>11s} "
                  f"{'share':>6s} {'grade process CPU':>18s}")
            for cold in (True, False):
                walls = [r[0] for r in runs[cold]]
                cpus = [r[1] for r in runs[cold]]
                fixed = statistics.median(w - c for w, c in zip(walls, cpus))
                cpu = statistics.median(cpus)
                own = f"{statistics.median(r[2] for r in runs[cold]):16.2f} s"
                print(f"  {'cold' if cold else 'warm':5s} {statistics.median(walls):6.2f}s "
                      f"{cpu:11.2f}s {fixed:10.2f}s {fixed / cpu:6.0%} {own}")
    print(f"\n{load()}")
    warm.close_all()


if __name__ == "__main__":
    main()

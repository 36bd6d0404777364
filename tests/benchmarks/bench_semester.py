"""The semester drill with a whole class: a term of two assignments on one server.

    python tests/benchmarks/bench_semester.py [--students 500] [--window 600] [--late 120]
                                              [--outage 600] [--dask | --scheduler ADDRESS]
                                              [--jobs 2] [--no-batch] [--wrk-seconds 10]

The drill of tests/service/semester_drill.py (its docstring says the term: LTI launches from
a Canvas-shaped LMS over HTTPS, hand-ins through the page's form naming their assignment, a
deadline rush per assignment with the server killed by SIGKILL and started again in the
minimax's, extensions, late hand-ins under a penalty, the LMS's scores down for
``--outage`` seconds in the Monte Carlo's rush, the instructor's configuration change and
regrade of the Monte Carlo, adjustments), with the realistic mix of files. ``--dask``
starts a local Dask cluster (a scheduler and two workers, as docs/deploy/cluster.md says)
and serves with ``--scheduler``.

It ends with one page: what semester_report.py checks (every hand-in received and graded
once, none lost or doubled, each final grade explained by its records and equal to the
LMS's, delivered within 60 s of when it could be: the outbox's retry schedule shows in the
delivery after the LMS's return); the page's latency p50, p95 and p99 during the rushes; a
waiting page's status polls (``wrk -c 50`` on one submission, kept-alive connections)
while both cores grade and after the term, idle; the grading throughput of each rush and
of the instructor's regrade against ``batch --jobs 2`` on the same files.

Not a test: pytest does not collect bench_*.py. A smaller term for a look:
``--students 60 --window 300 --late 60 --outage 300``.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "service"))      # the drill's modules
sys.path.insert(0, str(HERE.parent.parent))          # the project's grader

from bench_polls import wrk  # noqa: E402
from batch_compare import batch  # noqa: E402
from semester_drill import Drill, Term  # noqa: E402
from semester_report import check, settle, when  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--window", type=float, default=1200.0, metavar="SECONDS",
                        help="each assignment's time before its deadline (default 1200: the "
                             "minimax's rush is graded before the Monte Carlo's begins)")
    parser.add_argument("--late", type=float, default=300.0, metavar="SECONDS")
    parser.add_argument("--outage", type=float, default=600.0, metavar="SECONDS",
                        help="the LMS's scores down this long (default 600: ten minutes)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dask", action="store_true", help="a local Dask cluster")
    parser.add_argument("--scheduler", help="a running Dask scheduler's address")
    parser.add_argument("--no-batch", action="store_true", help="no comparison with batch")
    parser.add_argument("--wrk-seconds", type=float, default=10.0)
    parser.add_argument("--limit", type=float, default=7200.0, metavar="SECONDS",
                        help="the longest wait for the queue and the outbox after the term")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser.parse_args(argv)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def polls_when_busy(drill: Drill, seconds: float, found: dict) -> None:
    """In the minimax's rush, once both slots grade: wrk on one received submission."""
    events = drill.events
    while not events.start:
        time.sleep(0.5)
    rush_start, deadline = events.rushes["minimax"]
    time.sleep(max(0.0, rush_start + 0.5 * (deadline - rush_start) - time.time()))
    while time.time() < events.late_deadlines["minimax"]:
        if events.killed and not events.restarted or busy_slots(drill) < drill.term.jobs:
            time.sleep(0.5)
            continue
        target = polled(drill)
        if target is None:
            time.sleep(0.5)
            continue
        found["busy"] = wrk(target[0], target[1], seconds, 50, 1)
        found["busy"]["still grading"] = busy_slots(drill)
        return


def busy_slots(drill: Drill) -> int:
    with sqlite3.connect(drill.data / "course.sqlite3", timeout=30) as db:
        return db.execute("SELECT COUNT(*) FROM submissions WHERE status = 'running'"
                          ).fetchone()[0]


def polled(drill: Drill) -> tuple[str, str] | None:
    """The status URL of a received hand-in and its student's token."""
    for student in drill.students:
        for one in student.hand_ins:
            if one.number is not None:
                return f"{drill.url}/api/submissions/{one.number}", drill.tokens[student.sid]
    return None


def latencies(drill: Drill) -> list[str]:
    """p50/p95/p99 of each kind of request made during a rush (deadline - rush .. the
    late deadline), and of all of them."""
    events = drill.events
    windows = [(start, events.late_deadlines[name]) for name, (start, _) in
               events.rushes.items()]
    lines = [f"{'the page during the rushes (ms)':34} {'count':>6} {'p50':>6} {'p95':>6} "
             f"{'p99':>6}"]
    every = []
    for kind, values in sorted(events.latencies.items()):
        inside = [took for at, took in values if any(a <= at <= b for a, b in windows)]
        every += inside
        if inside:
            lines.append(f"  {kind:32} {len(inside):6} " + " ".join(
                f"{1000 * percentile(inside, share):6.0f}" for share in (0.5, 0.95, 0.99)))
    if every:
        lines.append(f"  {'every request':32} {len(every):6} " + " ".join(
            f"{1000 * percentile(every, share):6.0f}" for share in (0.5, 0.95, 0.99)))
    return lines


def throughput(drill: Drill, folder: Path, run_batch: bool) -> list[str]:
    """Each rush's grading rate on the server (its hand-ins received in the rush, from the
    first start to the last finish), and each regrade's (the instructor's, of a whole
    class: a backlog, as a rush's is), against batch --jobs J on the same files. A rush
    whose hand-ins were regraded since has its regrade's times in the database, not the
    rush's: it is measured by the regrade instead. (The regrade's configuration changes
    rubric weights only, so batch, with the default one, does the same work.)"""
    lines = []
    with sqlite3.connect(drill.data / "course.sqlite3", timeout=30) as db:
        db.row_factory = sqlite3.Row
        rows = {int(row["id"]): dict(row) for row in db.execute(
            "SELECT id, assignment, received_at, started_at, finished_at, seconds, regrade "
            "FROM submissions")}
    hand_ins = [one for student in drill.students for one in student.hand_ins
                if one.number in rows]
    runs: list[tuple[str, str, list]] = []
    for assignment, (start, deadline) in drill.events.rushes.items():
        mine = [one for one in hand_ins if one.assignment == assignment
                and start <= when(rows[one.number]["received_at"]) <= deadline]
        timed = [one for one in mine if not rows[one.number]["regrade"]]
        if mine and len(timed) < len(mine) / 2:
            lines.append(f"{assignment}'s rush: {len(mine) - len(timed)} of its {len(mine)} "
                         "hand-ins regraded since (their times are the regrade's): see the "
                         "regrade")
        elif timed:
            runs.append((f"{assignment}'s rush", assignment, timed))
    for assignment in drill.events.rushes:
        regraded = [one for one in hand_ins if one.assignment == assignment
                    and rows[one.number]["regrade"]]
        if regraded:
            runs.append((f"{assignment}'s regrade", assignment, regraded))
    for label, assignment, chosen in runs:
        timed_rows = [rows[one.number] for one in chosen]
        first = min(when(row["started_at"]) for row in timed_rows)
        last = max(when(row["finished_at"]) for row in timed_rows)
        rate = 60 * len(chosen) / max(last - first, 1e-9)
        line = (f"{label}: {len(chosen)} hand-ins graded in {last - first:.0f} s on "
                f"the server, {rate:.1f} a minute")
        if run_batch:
            slug = label.replace("'s ", "-")
            files = folder / "batch-files" / slug
            files.mkdir(parents=True, exist_ok=True)
            for number, one in enumerate(chosen):
                (files / f"{one.student}-{number}.py").write_bytes(one.data)
            wall, _, _ = batch(files, folder / "batch-out" / slug, drill.term.jobs,
                               assignment)
            batch_rate = 60 * len(chosen) / wall
            line += (f"; batch --jobs {drill.term.jobs} on the same {len(chosen)} files "
                     f"{wall:.0f} s, {batch_rate:.1f} a minute: the server's rate is "
                     f"{rate / batch_rate:.0%} of batch's")
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-semester-"))
    cluster = None
    try:
        scheduler = args.scheduler
        if args.dask:
            from dask_cluster import local_cluster
            cluster = local_cluster(folder / "dask", workers=2)
            scheduler = cluster.__enter__().address
        term = Term(students=args.students, window=args.window, late=args.late,
                    outage=args.outage, outage_at=0.3, kill_at=0.85, jobs=args.jobs,
                    scheduler=scheduler, realistic=True, seed=args.seed, adjustments=10)
        print(f"{args.students} students, two assignments, each open {args.window:g} s before "
              f"its deadline and {args.late:g} s late; the LMS down {args.outage:g} s; "
              f"--jobs {args.jobs}" + (f" on Dask ({scheduler})" if scheduler else "")
              + f"; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; folder {folder}",
              flush=True)
        with Drill(folder / "drill", term) as drill:
            found: dict = {}
            watcher = threading.Thread(target=polls_when_busy,
                                       args=(drill, args.wrk_seconds, found), daemon=True)
            watcher.start()
            started = time.monotonic()
            drill.run()
            settled = settle(drill, args.limit)
            took = time.monotonic() - started
            target = polled(drill)
            if target is not None:
                found["idle"] = wrk(target[0], target[1], args.wrk_seconds, 50, 1)
            report = check(drill)
            page = [f"the term took {took:.0f} s" + ("" if settled else
                                                     " (the queue or outbox never emptied)")]
            page += report.lines + latencies(drill)
            for kind in ("busy", "idle"):
                if kind in found:
                    one = found[kind]
                    page.append(f"status polls, wrk -c 50, {kind}: {one['rate']:.0f}/s, p50 "
                                f"{1000 * one['p50']:.1f} ms, p99 {1000 * one['p99']:.1f} ms"
                                + (f" ({one['still grading']} grading at its end)"
                                   if kind == "busy" else ""))
            if "busy" in found and "idle" in found:
                page.append(f"busy against idle: {found['busy']['rate'] / found['idle']['rate']:.0%}")
        page += throughput(drill, folder, not args.no_batch)
        print("\n" + "\n".join(page) + "\n" + ("\nPROBLEMS:\n  " + "\n  ".join(report.problems)
                                               if report.problems else "\nno problem found"))
        return 1 if report.problems else 0
    finally:
        if cluster is not None:
            cluster.__exit__(None, None, None)
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

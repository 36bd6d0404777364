"""A whole class through the batch grader: how long 60 (or N) realistic submissions take.

    python tests/benchmarks/bench_class.py [--size N] [--jobs N] [--cold] [--keep]

Builds, in a temporary folder, a class of ``--size`` submissions (default 60) mixed the way a
real class is: most correct, in the styles students write (plain minimax, memoised and early
exit on a winning score from tests/submissions/grader/, alpha-beta from
tests/submissions/class/, an own winner check written like the course's board and a couple
copying with copy.deepcopy, plain or with an early return, from tests/submissions/timing/),
then the classic bugs (tests/submissions/grader/bug_*.py as they are), a few too slow for
the limits (busy work, tests/submissions/grader/too_slow.py; every line through every
square checked twice per position, tests/submissions/timing/recheck_every_line.py),
sleepers (tests/submissions/timing/sleeper.py),
crashers (os._exit in every call, tests/submissions/class/), the untouched template
(student/mm_player.py: raises NotImplementedError) and a syntax error. For 60 the mix is
13 alpha-beta, 10 plain, 8 memo, 6 early exit, 3 course-style, 2 deepcopy, 9 bugs, 3 too
slow, 2 sleepers, 2 crashers, 1 template, 1 syntax error; other sizes scale it (from 12 on,
at least one of each). Files
are named student001.py ...; the styles are shuffled (always the same way) so that the slow
ones are not bunched, and each file starts with a comment naming its student, so no two are
identical.

Then runs ``python -m grader batch CLASS --out OUT --jobs N --quiet`` (every student is
asked the same positions, as in real use), and prints the wall time, submissions per
minute, the time 500 would take at that rate (linear, and from the steady rate: the
submissions done while every slot was busy, up to the end of the (N - jobs)th, when the
last one has started, watched as OUT/results/ fills; plus this run's tail, which a
class of 500 has once, not 500/60 times) and the students' CPU floor for 500 (their CPU
seconds over the cores used, at most ``--jobs``: what no grader can go below), the mean
and largest per-submission wall and student CPU seconds from OUT/gradebook.csv, and for
each style the lowest and highest score (the correct styles, deepcopy among them, should
all get full marks; a line says so otherwise), the mean wall and the mean wall minus the
student's CPU (the grader's share, and a sleeper's sleep, during which its slot is lent
to the next grade). The batch grades warm
(``grader.classroom.warm``) unless ``--cold`` (``TTT_GRADER_COLD=1``: a fresh process per
grade). The machine's load (uptime) is printed before and after: other workers share it.
Named bench_*.py so that pytest does not collect it.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
CLASS = PROJECT / "tests" / "submissions" / "class"
BUGS = PROJECT / "tests" / "submissions" / "grader"
TIMING = PROJECT / "tests" / "submissions" / "timing"
TEMPLATE = PROJECT / "student" / "mm_player.py"

# The bugs in the order they are handed out (9 in a class of 60: all but the infinite loop).
BUG_FILES = ["bug_sign_error_o.py", "bug_draws_as_losses.py", "bug_no_move_when_losing.py",
             "bug_opponent_move.py", "bug_reverse_wrong.py", "bug_only_3x3.py",
             "bug_mutates_board.py", "bug_no_base_case.py", "bug_crash.py",
             "bug_infinite_loop.py"]

# style: (files a student of that style hands in, how many in a class of 60)
STYLES: dict[str, tuple[list[Path], int]] = {
    "alpha-beta": ([CLASS / "alphabeta.py"], 13),
    "plain": ([BUGS / "correct_plain.py"], 10),
    "memoised": ([BUGS / "correct_memoised.py"], 8),
    "early exit": ([BUGS / "correct_pruned.py"], 6),
    "course-style win check": ([TIMING / "course_style_wincheck.py"], 3),
    "deepcopy": ([TIMING / "deepcopy.py", TIMING / "deepcopy_early_return.py"], 2),
    "classic bug": ([BUGS / name for name in BUG_FILES], 9),
    "too slow": ([BUGS / "too_slow.py", TIMING / "recheck_every_line.py"], 3),
    "sleeper": ([TIMING / "sleeper.py"], 2),
    "crasher": ([CLASS / "crasher.py"], 2),
    "template (raises)": ([TEMPLATE], 1),
    "syntax error": ([CLASS / "syntax_error.py"], 1),
}
# Correct and fast enough: these should all get full marks.
FULL_MARKS = {"alpha-beta", "plain", "memoised", "early exit", "course-style win check",
              "deepcopy"}
PROJECTED = 500


def class_mix(size: int) -> dict[str, int]:
    """How many files of each style a class of ``size`` has (the 60 mix, scaled).

    >>> sum(class_mix(60).values()), class_mix(60)["alpha-beta"], min(class_mix(12).values())
    (60, 13, 1)
    """
    weights = {style: count for style, (_, count) in STYLES.items()}
    base = dict.fromkeys(weights, 0)
    if len(weights) <= size < sum(weights.values()):  # one of each, the rest like the 60 mix
        base = dict.fromkeys(weights, 1)
        weights = {style: count - 1 for style, count in weights.items()}
    rest = size - sum(base.values())
    total = sum(weights.values())
    shares = {style: rest * weight / total for style, weight in weights.items()}
    counts = {style: base[style] + int(share) for style, share in shares.items()}
    by_remainder = sorted(shares, key=lambda style: (-(shares[style] % 1), -weights[style]))
    for style in by_remainder[:size - sum(counts.values())]:
        counts[style] += 1
    return counts


def build_class(folder: Path, size: int) -> dict[str, str]:
    """Write ``size`` submissions into ``folder``; return each student id's style."""
    styles = [style for style, count in class_mix(size).items() for _ in range(count)]
    random.Random(2024).shuffle(styles)
    handed_out: dict[str, int] = defaultdict(int)
    who: dict[str, str] = {}
    for number, style in enumerate(styles, 1):
        files = STYLES[style][0]
        source = files[handed_out[style] % len(files)]
        handed_out[style] += 1
        student = f"student{number:03d}"
        text = source.read_text(encoding="utf-8")
        (folder / f"{student}.py").write_text(
            f"# {student}: mm_player.py ({style}, from {source.name})\n{text}", encoding="utf-8")
        who[student] = style
    return who


def note_finished(results: Path, finished: dict[str, float], now: float) -> None:
    """Note the time ``now`` for each result in ``results`` (a folder per assignment) not
    seen before."""
    try:
        names = [f"{folder.name}/{entry.name}" for folder in os.scandir(results)
                 if folder.is_dir() for entry in os.scandir(folder.path)
                 if entry.name.endswith(".json")]
    except OSError:   # not made yet
        return
    for name in names:
        finished.setdefault(name, now)


def load() -> str:
    return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def number(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=60,
                        help="submissions in the class (default 60)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="grade this many at a time (batch --jobs, default 2)")
    parser.add_argument("--cold", action="store_true",
                        help="grade every submission in a fresh process (TTT_GRADER_COLD=1)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the class and the batch output, and print where they are")
    args = parser.parse_args()
    if args.size < 1 or args.jobs < 1:
        parser.error("--size and --jobs must be at least 1")

    work = Path(tempfile.mkdtemp(prefix="bench-class-"))
    try:
        folder, out = work / "class", work / "grades"
        folder.mkdir()
        who = build_class(folder, args.size)
        mix = class_mix(args.size)
        print(f"a class of {args.size}: " + ", ".join(
            f"{count} {style}" for style, count in mix.items() if count))
        print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; --jobs {args.jobs}; "
              f"{'cold' if args.cold else 'warm'}; {load()}")
        command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out),
                   "--jobs", str(args.jobs), "--quiet"]
        environ = {key: value for key, value in os.environ.items() if key != "TTT_GRADER_COLD"}
        if args.cold:
            environ["TTT_GRADER_COLD"] = "1"
        started = time.perf_counter()
        finished: dict[str, float] = {}   # when each result appeared, from the start
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            batch = subprocess.Popen(command, cwd=PROJECT, stdout=stdout, stderr=stderr,
                                     env=environ)
            while batch.poll() is None:
                time.sleep(0.1)
                note_finished(out / "results", finished, time.perf_counter() - started)
            wall = time.perf_counter() - started
            note_finished(out / "results", finished, wall)
            stdout.seek(0)
            stderr.seek(0)
            done = subprocess.CompletedProcess(
                command, batch.returncode, stdout.read().decode(errors="replace"),
                stderr.read().decode(errors="replace"))
        print(f"after the batch: {load()}")
        if done.returncode not in (0, 1):
            sys.exit(f"batch failed ({done.returncode}): {' '.join(command)}\n"
                     f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        if done.returncode == 1:
            print("note: the batch exited 1 (some grading runs failed); see the rows below")

        # utf-8-sig: the gradebook starts with the BOM that Excel needs
        with open(out / "gradebook.csv", newline="", encoding="utf-8-sig") as file:
            rows = list(csv.DictReader(file))
        print()
        print(f"  submissions            {len(rows):8d}   (of {args.size} written)")
        print(f"  wall time              {wall:8.1f} s")
        print(f"  submissions per minute {len(rows) / wall * 60:8.1f}")
        projected = wall / max(len(rows), 1) * PROJECTED / 60
        print(f"  {PROJECTED} submissions         {projected:8.1f} min (linear projection)")
        # The last grades of a run leave slots idle (the tail: one long grade at the end).
        # A class of 500 has the same tail, not 500/60 of it: project the steady part only.
        # The last grade starts when the (N - jobs)th ends (or earlier, on a lent slot):
        # up to then every slot is busy; after it, the tail.
        cores = min(args.jobs, len(os.sched_getaffinity(0)))
        ends = sorted(finished.values())
        if len(ends) > args.jobs:
            steady_end = ends[-args.jobs - 1]
            tail = ends[-1] - steady_end
            rate = (len(ends) - args.jobs) / steady_end
            print(f"  {PROJECTED} submissions         "
                  f"{((PROJECTED - args.jobs) / rate + tail) / 60:8.1f} min (steady rate: "
                  f"{len(ends) - args.jobs} done in {steady_end:.0f} s, while every slot was "
                  f"busy, plus this run's tail of {tail:.0f} s)")
        cpus = [value for row in rows if (value := number(row.get("cpu_seconds"))) is not None]
        if cpus:
            floor = statistics.mean(cpus) * PROJECTED / cores / 60
            print(f"  students' CPU floor    {floor:8.1f} min for {PROJECTED} on {cores} "
                  f"cores (the linear projection is {projected / floor - 1:+.0%} above it)")
        for column, label in (("wall_seconds", "wall"), ("cpu_seconds", "student CPU")):
            values = [(value, row["student_id"]) for row in rows
                      if (value := number(row.get(column))) is not None]
            if not values:
                print(f"  per submission {label}: no figures in the gradebook ({column})")
                continue
            mean = statistics.mean(value for value, _ in values)
            top, top_id = max(values)
            print(f"  per submission {label + ':':13s} mean {mean:6.2f} s, "
                  f"max {top:6.2f} s ({top_id}, {who.get(top_id, '?')})")

        by_style: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in rows:
            by_style[who.get(row["student_id"], "?")].append(row)
        print()
        print(f"  {'style':24s} {'files':>5s} {'min':>6s} {'max':>6s}  "
              f"{'mean wall':>9s}  {'- CPU':>7s}  status")
        for style in [*STYLES, "?"]:
            group = by_style.get(style)
            if not group:
                continue
            scores = [number(row.get("score")) for row in group]
            known = [score for score in scores if score is not None]
            walls = [w for row in group if (w := number(row.get("wall_seconds"))) is not None]
            statuses = sorted({row.get("status", "") for row in group})
            low = f"{min(known):6.1f}" if known else "     -"
            high = f"{max(known):6.1f}" if known else "     -"
            mean_wall = f"{statistics.mean(walls):7.1f} s" if walls else "        -"
            # wall - student CPU: the grader's share (and a sleeper's sleep)
            shares = [w - c for row in group if (w := number(row.get("wall_seconds")))
                      is not None and (c := number(row.get("cpu_seconds"))) is not None]
            share = f"{statistics.mean(shares):5.2f} s" if shares else "      -"
            tops = [top for row in group if (top := number(row.get("max_score"))) is not None]
            flag = "  <- should be full marks" if (
                style in FULL_MARKS and known and tops and min(known) < min(tops)) else ""
            print(f"  {style:24s} {len(group):5d} {low} {high}  {mean_wall}  {share}  "
                  f"{'; '.join(statuses)}{flag}")
        if args.keep:
            print(f"\nkept: {folder} (the class) and {out} (the batch output)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

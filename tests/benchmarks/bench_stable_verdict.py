"""One score per file under load: a file near its limits graded again and again beside busy
processes (each ``python3 -c 'while True: pass'``, a core's worth of load).

    python tests/benchmarks/bench_stable_verdict.py                  # borderline.py, 10 x 0, 1, 2
    python tests/benchmarks/bench_stable_verdict.py FILE --runs 3 --busy 2
    python tests/benchmarks/bench_stable_verdict.py FILE --record    # careful rounds, as JSON

Prints, for each number of busy processes, every run's score, its tiers judged too slow,
its careful measurements (calls measured again) and rounds, the grader's own CPU seconds
beside the student's, and the run's wall time; then whether every run got one score (exit
status 1 if not). ``--record`` instead times careful rounds as the grader makes them on the
hardest 3x3 position with 6 empty squares (the reference's timings, then the calls) and
prints them in the form of ``tests/timing/recorded_rounds.json``.

The submission runs in the grader's sandbox, never in this process.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "suite"))   # load.py

from grader.judge.positions import hidden_positions  # noqa: E402
from grader.judge.solver import Solver  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402
from grader.assignments.minimax.client import REPEATS, SHORT_ROUND  # noqa: E402
from grader.timing.pacing import MM_MOVE, Pacing  # noqa: E402
from grader.timing.policy import EMPTY_BOARD_NODES, TimePolicy  # noqa: E402
from load import busy  # noqa: E402

BORDERLINE = ROOT / "tests" / "submissions" / "timing" / "borderline.py"
RECORDED_TIER = "3x3 positions with 6 empty squares (normal game)"




def grade(submission: Path, out: Path) -> tuple[dict, float]:
    """results.json of one ``grade`` of ``submission``, and its wall seconds."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(submission), "--json",
                           str(out), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"grade failed: {done.stdout}{done.stderr}")
    return json.loads(out.read_text()), time.monotonic() - started


def short(tier: str) -> str:
    """'3x3 positions with 7 empty squares (normal game)' -> '3x3/7'."""
    words = tier.split()
    return f"{words[0]}/{words[3]}{' rev' if 'reverse' in tier else ''}"


def grades(submission: Path, runs: int, loads: list[int]) -> bool:
    scores = set()
    with tempfile.TemporaryDirectory() as folder:
        for processes in loads:
            print(f"beside {processes} busy processes:", flush=True)
            with busy(processes):
                for run in range(runs):
                    results, wall = grade(submission, Path(folder) / f"{processes}-{run}.json")
                    extra = results["extra_data"]
                    timing = extra["timing"]
                    scores.add(results["score"])
                    slow = " ".join(short(tier) for tier in extra["too_slow"]) or "-"
                    print(f"  {results['score']:6.2f}  too slow: {slow:<28} careful "
                          f"{timing['careful_measurements']:2d} ({timing['careful_rounds']:2d} "
                          f"rounds)  grader {timing['grader_cpu_seconds']:5.2f} s, student "
                          f"{timing['student_own_cpu_seconds']:5.2f} s, {wall:5.1f} s wall",
                          flush=True)
    print(f"scores: {sorted(scores)}: {'one score' if len(scores) == 1 else 'NOT one score'}")
    return len(scores) == 1


def record(submission: Path, rounds: int, loads: list[int]) -> None:
    """Careful rounds on the hardest position of RECORDED_TIER, as the client makes them."""
    policy = TimePolicy()
    pacing = Pacing(policy, Solver(), hidden_positions().all())
    position = next(pacing.yardstick(pacing.tier(MM_MOVE, p), p) for p in pacing.order(
        hidden_positions().all()) if pacing.tier(MM_MOVE, p).describe() == RECORDED_TIER)
    repeats = min(REPEATS, max(1, math.ceil(
        SHORT_ROUND * EMPTY_BOARD_NODES / (policy.factor * pacing.nodes(position)))))
    recorded = {}
    for processes in loads:
        pairs = []
        with busy(processes), Sandbox(submission) as box:
            box.ready()
            for _ in range(rounds):
                references = [box.reference_seconds(position) for _ in range(repeats)]
                calls = [box.call(MM_MOVE, position, cpu_limit=60.0).cpu_seconds
                         for _ in range(repeats)]
                pairs.append([round(statistics.mean(calls), 5),
                              round(statistics.mean(references), 5)])
        recorded[str(processes)] = pairs
        ratios = " ".join(f"{call / reference:.2f}" for call, reference in pairs)
        print(f"beside {processes} busy processes, call / reference: {ratios}",
              file=sys.stderr, flush=True)
    print(json.dumps({"file": str(submission), "busy": recorded}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path, nargs="?", default=BORDERLINE)
    parser.add_argument("--runs", type=int, default=10, help="grades per load (default 10)")
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1, 2],
                        help="numbers of busy processes (default 0 1 2)")
    parser.add_argument("--record", action="store_true",
                        help="record careful rounds instead of grading")
    parser.add_argument("--rounds", type=int, default=25, help="rounds per load (--record)")
    args = parser.parse_args()
    if args.record:
        record(args.submission.resolve(), args.rounds, args.busy)
    elif not grades(args.submission.resolve(), args.runs, args.busy):
        sys.exit(1)


if __name__ == "__main__":
    main()

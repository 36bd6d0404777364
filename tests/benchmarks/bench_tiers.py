"""How far a submission is from its time limits, tier by tier, on this machine.

For the hardest position of each tier timed by ratio (see grader/timing/pacing.py), in a
real sandbox: the reference is timed on that very position, then the submission is called
on it (with room to run past its limit), ``--repeats`` times. Prints the submission's CPU
time as a share of the tier's limit (above 1.0: too slow) and as a multiple of the
reference. A verdict is only as stable as its margin: a tier at 0.95 or 1.05 of its limit
can land on either side on another day; at 0.6 or 1.45 it cannot.

    python tests/benchmarks/bench_tiers.py tests/submissions/timing/double_recursion.py
    python tests/benchmarks/bench_tiers.py FILE --max-empties 9 --repeats 5

The submission runs in the grader's sandbox, never in this process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from grader.judge.positions import hidden_positions  # noqa: E402
from grader.judge.solver import Solver  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402
from grader.timing.pacing import MM_MOVE, Pacing, Tier  # noqa: E402
from grader.timing.policy import TimePolicy  # noqa: E402


def measured_tiers(pacing: Pacing, max_empties: int) -> dict[Tier, object]:
    """The hardest planned position of every tier timed by ratio, up to ``max_empties``."""
    hardest = {}
    for position in pacing.order(hidden_positions().all()):
        tier = pacing.tier(MM_MOVE, position)
        if 0 < tier.empties <= max_empties and pacing.measured(tier, position):
            hardest.setdefault(tier, pacing.yardstick(tier, position))
    return hardest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--max-empties", type=int, default=7,
                        help="largest tier to time (default 7: 9 takes minutes when slow)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    policy = TimePolicy()
    pacing = Pacing(policy, Solver(), hidden_positions().all())
    tiers = measured_tiers(pacing, args.max_empties)
    print(f"{'tier':<50} {'limit s':>8}  share of the limit      x reference")
    with Sandbox(args.submission) as box:
        box.ready()
        for tier, position in sorted(tiers.items()):
            shares, multiples = [], []
            for _ in range(args.repeats):
                reference = box.reference_seconds(position)
                limit = policy.factor * reference
                reply = box.call(MM_MOVE, position, cpu_limit=4 * limit)
                shares.append(reply.cpu_seconds / limit)
                multiples.append(reply.cpu_seconds / reference)
            print(f"{tier.describe():<50} {limit:8.3f}  "
                  f"{statistics.median(shares):5.2f} ({min(shares):.2f}-{max(shares):.2f})"
                  f"     {statistics.median(multiples):6.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Similarity at the size of a large class: do planted copies come first, and how long do all
the pairs take?

    python3 tests/benchmarks/bench_similarity.py [--size 300] [--copies 6] [--seeds 17 18 19]

For each seed, generates (tests/classroom/similar_class.py) a class of ``--size`` files in
the correct styles of the fixtures, varied as students vary them, ``--copies`` of which are
planted copies of others (every name, comment and docstring changed, the functions
reordered; the last two also add a line of their own), then compares every pair as ``batch
--similarity`` does (grader.classroom.similarity.compare: the handout's and the course's
templates and the code more than 10% of the class shares do not count). Prints, per seed,
where each planted copy ranks in the list (1 = first; the summary page shows the first 50),
the shares of each, how many pairs the summary could list and the seconds for all pairs;
then the same with the common code counted (``common=False``), to show what the filter
buys. Named bench_*.py so that pytest does not collect it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
sys.path[:0] = [str(PROJECT), str(PROJECT / "tests" / "classroom")]

from grader.classroom import similarity  # noqa: E402
from similar_class import generate_class  # noqa: E402


def run(size: int, copies: int, seed: int,
        common: bool) -> tuple[list[int], list[float], float, similarity.Similarity]:
    """Where each planted copy ranks (0: not in the list at all), their shares (the mean of
    the two), the seconds ``compare`` took for all pairs, and what it found."""
    with tempfile.TemporaryDirectory(prefix="bench-similarity-") as folder:
        planted = generate_class(Path(folder), size, copies, seed=seed,
                                 extra_line_copies=min(2, copies))
        files = {path.stem: path for path in sorted(Path(folder).glob("*.py"))}
        start = time.perf_counter()
        found = similarity.compare(files, common=common)
        seconds = time.perf_counter() - start
    rank = {(pair.first, pair.second): (index, pair.share)
            for index, pair in enumerate(found.pairs, start=1)}
    ranks = [rank.get(pair, (0, 0.0))[0] for pair in planted]
    shares = [rank.get(pair, (0, 0.0))[1] for pair in planted]
    return ranks, shares, seconds, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--seeds", type=int, nargs="+", default=[17, 18, 19])
    args = parser.parse_args()
    similarity.require_copydetect()
    pairs = args.size * (args.size - 1) // 2
    print(f"a class of {args.size} files ({pairs} pairs), {args.copies} planted copies "
          f"(the last {min(2, args.copies)} with a line of their own)")
    for common in (True, False):
        label = ("common code left out (batch --similarity)" if common
                 else "common code counted (the templates still left out)")
        print(f"\n{label}:")
        times, worst = [], []
        for seed in args.seeds:
            ranks, shares, seconds, found = run(args.size, args.copies, seed, common)
            times.append(seconds)
            worst.append(max(ranks) if all(ranks) else len(found.pairs) + 1)
            in_top = sum(0 < rank <= args.copies for rank in ranks)
            extra = min(2, args.copies)
            shown = (f"{ranks[:len(ranks) - extra]}, with a line of their own "
                     f"{ranks[len(ranks) - extra:]}" if extra else f"{ranks}")
            print(f"  seed {seed}: ranks {shown} ({in_top} of {args.copies} in the "
                  f"top {args.copies}); their shares "
                  f"{', '.join(f'{share:.2f}' for share in shares)}; {found.above} pairs above the "
                  f"threshold ({len(found.listed)} shown); common fingerprints "
                  f"{found.common} (in more than {found.common_limit} files); "
                  f"{seconds:.1f} s for all pairs")
        print(f"  every planted copy within the top {max(worst)}; "
              f"median {statistics.median(times):.1f} s for {pairs} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the sandbox costs: starting a worker (import of a submission included) and one call.

Starts a sandbox on a small course-style submission again and again, then times calls of a
trivial ``mm_move`` on a 3x3 board; with bubblewrap (when usable here) and without. Prints
medians, a bare ``python -I -S`` start for comparison, and the isolation layers in force.

    python tests/benchmarks/bench_sandbox.py [--starts N] [--calls N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.judge.position import Position
from grader.sandbox import Limits, Sandbox
from grader.sandbox.layers import bwrap_problem as _bwrap_problem, layout as _layout

SUBMISSION = '''\
import poc_ttt_gui
import poc_ttt_provided as provided
import codeskulptor
codeskulptor.set_timeout(60)

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    """Trivial: the call's own cost is next to nothing, so the round trip is overhead."""
    return 0, (1, 1)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
'''


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench(path: Path, use_bwrap: bool, starts: int, calls: int) -> None:
    start_times, close_times = [], []
    for _ in range(starts):
        box = Sandbox(path, Limits(), use_bwrap=use_bwrap)
        began = time.perf_counter()
        box.start()
        start_times.append(time.perf_counter() - began)
        began = time.perf_counter()
        box.close()
        close_times.append(time.perf_counter() - began)
    position = Position.empty(3)
    with Sandbox(path, Limits(), use_bwrap=use_bwrap) as box:
        for _ in range(100):  # warm up
            box.call("mm_move", position, 1.0)
        round_trips, cpu = [], []
        for _ in range(calls):
            began = time.perf_counter()
            reply = box.call("mm_move", position, 1.0)
            round_trips.append(time.perf_counter() - began)
            cpu.append(reply.cpu_seconds)
        assert reply.status == "ok" and reply.answer == (0, (1, 1)), reply
        layers = box.isolation
    name = "with bubblewrap" if use_bwrap else "without bubblewrap"
    print(f"{name}:")
    print(f"  worker start + import: median {median_ms(start_times):6.1f} ms "
          f"(min {min(start_times) * 1000:.1f}, n={starts}); close {median_ms(close_times):.1f} ms")
    print(f"  call round trip:       median {median_ms(round_trips):6.3f} ms "
          f"(student CPU {median_ms(cpu):.3f} ms, n={calls})")
    print("  isolation: " + "; ".join(layers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args()
    bare = []
    for _ in range(args.starts):
        began = time.perf_counter()
        subprocess.run([_layout().python, "-I", "-S", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - began)
    print(f"bare python -I -S -c pass: median {median_ms(bare):.1f} ms  ({sys.version.split()[0]})")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mm_player.py"
        path.write_text(SUBMISSION)
        problem = _bwrap_problem()
        if problem is None:
            bench(path, True, args.starts, args.calls)
        else:
            print(f"with bubblewrap: skipped ({problem})")
        bench(path, False, args.starts, args.calls)


if __name__ == "__main__":
    main()

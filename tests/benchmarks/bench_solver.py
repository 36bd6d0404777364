"""How fast the reference solver is: run ``python tests/benchmarks/bench_solver.py``.

Each figure is the best of a few repeats, every repeat with a fresh Solver
(cold caches), timed with time.perf_counter. Named bench_*.py so that pytest
does not collect it.
"""

from __future__ import annotations

import time
from typing import Callable

from grader.judge.position import Position
from grader.judge.solver import Solver, reachable
from provided.board import EMPTY, PLAYERO, PLAYERX

REPEATS = 3

# A fixed 4x4 position with 10 empty squares, X to move (3 X, 3 O), no immediate
# threat; in reverse mode two of its ten moves lose, so best_moves is a real subset.
TEN_EMPTIES = Position.from_grid([[EMPTY, PLAYERO, EMPTY, EMPTY],
                                  [EMPTY, EMPTY, PLAYERX, EMPTY],
                                  [EMPTY, EMPTY, PLAYERX, EMPTY],
                                  [EMPTY, PLAYERO, PLAYERO, PLAYERX]], PLAYERX)


def table_3x3(reverse: bool) -> Callable[[], str]:
    positions = list(reachable(3, reverse))

    def run() -> str:
        solver = Solver()
        for pos in positions:
            solver.value(pos)
            solver.best_moves(pos)
        return f"{len(positions)} positions"
    return run


def solve(pos: Position) -> Callable[[], str]:
    def run() -> str:
        solver = Solver()
        return f"value {solver.value(pos)}, best {sorted(solver.best_moves(pos))}"
    return run


def empty_4x4(reverse: bool) -> Callable[[], str]:
    def run() -> str:
        solver = Solver()
        empty = Position.empty(4, reverse=reverse)
        value = solver.value(empty)
        firsts = set(solver.move_values(empty).values())
        return f"value {value}, first moves {sorted(firsts)}"
    return run


def main() -> None:
    cases = [
        ("3x3 table (values + best-move sets), normal", table_3x3(False)),
        ("3x3 table (values + best-move sets), reverse", table_3x3(True)),
        ("4x4, 10 empty squares: value + best_moves, normal", solve(TEN_EMPTIES)),
        ("4x4, 10 empty squares: value + best_moves, reverse",
         solve(Position(4, TEN_EMPTIES.cells, PLAYERX, True))),
        ("4x4 empty: value + all 16 first moves, normal", empty_4x4(False)),
        ("4x4 empty: value + all 16 first moves, reverse", empty_4x4(True)),
    ]
    print(f"{'case':<52} {'best s':>8} {'worst s':>8}  result")
    print("-" * 100)
    for name, run in cases:
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            result = run()
            times.append(time.perf_counter() - start)
        print(f"{name:<52} {min(times):>8.3f} {max(times):>8.3f}  {result}")


if __name__ == "__main__":
    main()

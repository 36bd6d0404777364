"""Load for the tests and benchmarks that grade beside busy processes: ``busy(2)`` starts
two processes that each burn a core (``python3 -c 'while True: pass'``) for as long as the
block runs. Not a test module: test_verdicts.py, test_same_report.py and
tests/benchmarks/bench_stable_verdict.py import it.

    with busy(2):
        results = grade(...)      # every core taken by something else too
"""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` processes that each burn a core while the block runs."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(processes)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()

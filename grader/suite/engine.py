"""One grading run: load the submission in its sandbox, run the hidden suite, collect results.

The hidden suite is made of pytest tests (this folder's ``test_rubric.py``); this module
runs them through pytest's own API with the plugin of ``grader.suite.plugin``, and turns
what the tests recorded into a ``GradeResult``. The first test to ask for ``student`` has
every hidden position asked first, in the pacing's order (``grader.timing.pacing``); the
tests then read cached verdicts. pytest-timeout stops a test that runs away, as a backstop.

    result = grade(Path("submission.py"), GradeOptions(student_id="alice"))
    print(result.score)
"""

from __future__ import annotations

import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from grader.judge.position import Position
from grader.judge.positions import HiddenPositions, hidden_positions
from grader.judge.results import GradeResult, ItemResult
from grader.judge.solver import shared_solver
from grader.sandbox import LoadError, Sandbox
from grader.sandbox.cpu import beside
from grader.suite.client import StudentClient
from grader.suite.config import SUITE, Config
from grader.suite.plugin import GradingPlugin
from grader.timing.policy import TimePolicy

INTERRUPTED = "interrupted before the end: the report covers what was finished"


@dataclass(frozen=True)
class GradeOptions:
    student_id: str = ""
    exhaustive: bool = False          # every reachable 3x3 position, not one per symmetry class
    config: Config = field(default_factory=Config.load)
    checks: tuple[Path, ...] = ()     # more test files or folders (extra rubric items)


def grade(submission: Path, options: GradeOptions) -> GradeResult:
    """Grade one submission file; always returns a result (a failed load scores 0)."""
    started = time.perf_counter()
    weights = options.config.weights
    policy = options.config.policy
    base = dict(submission=str(submission), student_id=options.student_id)
    sandbox = Sandbox(submission)
    try:
        # An item with 0 points is off: it shows only when it checked something.
        nothing = tuple(ItemResult(name, points) for name, points in weights.items() if points)
        # The positions and their tree sizes are worked out while the sandbox starts (it
        # mostly waits for its process): a fifth of a second of every grade.
        with ThreadPoolExecutor(max_workers=1) as pool:
            prepared = pool.submit(_prepare, sandbox, policy, options.exhaustive)
            try:
                sandbox.start()
                hidden, client = prepared.result()
            except LoadError as problem:
                prepared.cancel()
                return GradeResult(**base, items=nothing, load_error=problem.message,
                                   load_kind=problem.kind, isolation=sandbox.isolation,
                                   wall_seconds=time.perf_counter() - started)
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM before the suite began
                prepared.cancel()
                return GradeResult(**base, items=nothing, load_output=sandbox.load_output,
                                   isolation=sandbox.isolation, grader_error=INTERRUPTED,
                                   wall_seconds=time.perf_counter() - started)
        plugin = GradingPlugin(client, hidden)
        assert sandbox.calibration is not None  # a started sandbox has timed the reference
        with _deferred_interrupts(sandbox), beside(sandbox.cpu):
            exit_code = _run_pytest([plugin, RunFacts(Path(submission), weights)], options,
                                    policy.budget_seconds(sandbox.calibration))
        items = _items(plugin, weights)
        grader_error = None
        if exit_code == pytest.ExitCode.INTERRUPTED or client.interrupted:
            grader_error = INTERRUPTED
        elif exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or plugin.errors:
            grader_error = "; ".join(f"{where}: {_last_line(text)}"
                                     for where, text in plugin.errors.items()) \
                or f"pytest exited with {exit_code!r}"
        unscored = [item for item in items if item.error is not None]
        if grader_error is None and unscored:  # a score without it would be a false grade
            grader_error = "; ".join(f"the rubric item {item.name!r} could not be scored: "
                                     f"{item.error}" for item in unscored)
        return GradeResult(
            **base, items=items, load_output=sandbox.load_output,
            student_cpu_seconds=round(client.stats.cpu_seconds, 3),
            wall_seconds=round(time.perf_counter() - started, 3),
            calls=client.stats.calls, timeouts=client.stats.timeouts,
            restarts=sandbox.restarts, isolation=sandbox.isolation,
            import_calls=sandbox.import_calls, course_imports=sandbox.course_imports,
            timing=_timing(client, sandbox), not_run=client.stats.not_run,
            too_slow=tuple(tier.describe() for tier in client.pacing.too_slow
                           if tier.function == "mm_move"),
            grader_error=grader_error)
    finally:
        sandbox.close()


def _prepare(sandbox: Sandbox, policy: TimePolicy,
             exhaustive: bool) -> tuple[HiddenPositions, StudentClient]:
    """The hidden positions and a client paced for them (no call is made here)."""
    hidden = hidden_positions(exhaustive=exhaustive)
    return hidden, StudentClient(sandbox, shared_solver(), policy, planned=hidden.all())


@contextmanager
def _deferred_interrupts(sandbox: Sandbox) -> Iterator[None]:
    """Ctrl-C and SIGTERM stop the student's call (within a poll), not the grader wherever
    it happens to be: every call after that is not made, and the report covers what was
    done. (Only the main thread may set signal handlers; elsewhere they stay as they are.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.getsignal(signum) for signum in signals}
    for signum in signals:
        signal.signal(signum, lambda *_: sandbox.interrupt())
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _timing(client: StudentClient, sandbox: Sandbox) -> dict:
    """How the limits were set and what the budget paid, for the report and extra_data."""
    policy, calibration = client.policy, sandbox.calibration
    data: dict = {"factor": policy.factor, "small": policy.small, "budget": policy.budget,
                  "budget_spent": round(client.pacing.spent, 3),
                  "budget_exhausted": client.stats.not_run > 0,
                  "calibrations": sandbox.calibrations,
                  "speed_checks": client.stats.speed_checks, "retries": client.stats.retries,
                  "presumed_too_slow": client.stats.presumed,
                  # the report's lead says these waited (a sleep), not "an endless loop?"
                  "waited_tiers": [tier.describe() for tier, why in
                                   client.pacing.too_slow.items()
                                   if why.waited and tier.function == "mm_move"]}
    if calibration is not None:
        data.update(calibration.to_json())
        data["budget_seconds"] = round(policy.budget_seconds(calibration), 2)
    data.update(_grader_share(client, sandbox))
    # The empty board's call, when it was right: a leaderboard's figure (and a class's).
    empty = client.verdicts.get(Position.empty(3))
    data["empty_board_cpu_seconds"] = (round(empty.cpu_seconds, 4) if empty is not None
                                       and empty.answered and not empty.failures else None)
    return data


def _grader_share(client: StudentClient, sandbox: Sandbox) -> dict:
    """What the grader's own checking cost, in CPU seconds, beside what the student's calls
    did: every reference search it timed (calibrations and careful rounds), and the calls
    made again in careful rounds. The careful rounds and the re-calibrations may cost no
    more than the student's own calls plus a few seconds (``grader.suite.client.VERIFY``).

    >>> from types import SimpleNamespace
    >>> stats = SimpleNamespace(cpu_seconds=10.0, retries=1, rounds=1, round_seconds=2.0)
    >>> box = SimpleNamespace(reference_timings=12, reference_seconds_total=0.5)
    >>> _grader_share(SimpleNamespace(stats=stats), box)["grader_cpu_seconds"]
    2.5
    """
    stats = client.stats
    references = sandbox.reference_seconds_total
    return {
        "reference_timings": sandbox.reference_timings,
        "reference_timing_seconds": round(references, 3),
        "careful_measurements": stats.retries,      # calls measured again
        "careful_rounds": stats.rounds,             # calls made again for that
        "careful_round_seconds": round(stats.round_seconds, 3),
        "grader_cpu_seconds": round(references + stats.round_seconds, 3),
        "student_own_cpu_seconds": round(stats.cpu_seconds - stats.round_seconds, 3),
    }


class RunFacts:
    """Fixtures about the run itself, for rubric tests that do not ask the student's code:
    ``submission`` (the file graded: read it, never import it) and ``rubric_points`` (each
    item's points, so that an item that is off, 0 points, can skip its work)."""

    def __init__(self, submission: Path, points: dict[str, float]) -> None:
        self._submission = submission
        self._points = dict(points)

    @pytest.fixture(scope="session")
    def submission(self) -> Path:
        return self._submission

    @pytest.fixture(scope="session")
    def rubric_points(self) -> dict[str, float]:
        return dict(self._points)


def _run_pytest(plugins: list[object], options: GradeOptions, budget: float) -> int:
    # The backstop is for the grader's own bugs: the budget stops slow students first.
    backstop = int(budget * 3 + 300)
    args = [str(SUITE), *map(str, options.checks),
            "-c", str(SUITE / "pytest.ini"), "--rootdir", str(SUITE),
            "--import-mode=importlib", "-p", "no:cacheprovider", "-p", "no:terminal",
            # Only our plugins: whatever else pytest finds installed (anyio, hypothesis...)
            # costs a tenth of a second a grade, and must not change a grade.
            "--disable-plugin-autoload", "-p", "pytest_timeout",
            "-p", "no:stepwise", f"--timeout={backstop}", "--assert=plain",
            # These two run gc.collect() around every test: a tenth of a second for nothing.
            "-p", "no:unraisableexception", "-p", "no:threadexception",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    return pytest.main(args, plugins=plugins)


def _items(plugin: GradingPlugin, weights: dict[str, float]) -> tuple[ItemResult, ...]:
    names = list(weights) + [name for name in plugin.order if name not in weights]
    items = []
    for name in names:
        record = plugin.records.get(name)
        error = _last_line(plugin.errors[name]) if name in plugin.errors else None
        if not weights.get(name) and error is None and record is not None and not record.total:
            continue  # 0 points and nothing checked: the item is off (style by default)
        if record is None:
            error = error or "no test in the suite scores this item"
            items.append(ItemResult(name, weights.get(name, 0.0), error=error))
            continue
        items.append(ItemResult(name, weights.get(name, 0.0), record.passed, record.total,
                                tuple(record.failures), tuple(record.notes), error,
                                record.no_answer))
    return tuple(items)


def _last_line(text: str) -> str:
    """What went wrong, in a line: the exception of a pytest traceback (its last "E" block
    starts with it; the traceback itself ends with only the place), else the last line.

    >>> _last_line("    raise StyleError(why)\\nE   StyleError: pylint failed\\n\\n"
    ...            "style.py:9: StyleError")
    'StyleError: pylint failed'
    """
    raw = str(text).splitlines()
    for index in range(len(raw) - 1, -1, -1):
        if raw[index].startswith("E   ") and (index == 0 or not raw[index - 1].startswith("E   ")):
            return raw[index][1:].strip()
    lines = [line.strip() for line in raw if line.strip()]
    return lines[-1] if lines else "unknown error"

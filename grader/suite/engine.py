"""One grading run: load the submission in its sandbox, run the hidden suite, collect results.

The hidden suite is the assignment's pytest files (``grader.assignments``: the minimax's is
``grader/suite/test_rubric.py``); this module runs them through pytest's own API with the
plugin of ``grader.suite.plugin`` (the ``record`` fixture and what the tests recorded) and
the assignment's session (its fixtures: how the tests ask the student's code), and turns
what the tests recorded into a ``GradeResult``. pytest-timeout stops a test that runs away,
as a backstop.

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
from typing import Callable, Iterator

import pytest

from grader.assignments import get as get_assignment
from grader.judge.results import GradeResult, ItemResult
from grader.sandbox import LoadError, Sandbox, SandboxError
from grader.sandbox.cpu import beside
from grader.sandbox.helpers import Helpers
from grader.suite.config import Config
from grader.suite.plugin import GradingPlugin

PYTEST_INI = Path(__file__).resolve().parent / "pytest.ini"   # the suite's pytest settings
INTERRUPTED = "interrupted before the end: the report covers what was finished"
# Reports for other tools (JUnit XML, a pastebin), doctests, --setup-only/--setup-plan, the
# pythonpath ini key, and faulthandler's dump on a crash (pytest-timeout says where a test
# hung): none is asked for by a grade, an assignment's tests or an instructor's --checks.
NOT_USED = ("-p", "no:junitxml", "-p", "no:pastebin", "-p", "no:doctest",
            "-p", "no:setuponly", "-p", "no:setupplan", "-p", "no:python_path",
            "-p", "no:faulthandler")


@dataclass(frozen=True)
class GradeOptions:
    student_id: str = ""
    exhaustive: bool = False          # every reachable 3x3 position, not one per symmetry class
    config: Config = field(default_factory=Config.load)   # its assignment is graded
    checks: tuple[Path, ...] = ()     # more test files or folders (extra rubric items)
    assignment_note: str = ""         # the report's "Assignment:" line (how it was chosen)
    # Other checks than the assignment's hidden suite, with the session they need: its
    # public checks, as ``python -m student check`` runs them (grader.suite.public).
    suite: tuple[Path, ...] = ()      # empty: the assignment's suite
    prepare: Callable[..., object] | None = None   # None: the assignment's prepare
    helpers: Helpers = Helpers()      # modules copied beside it (grader.sandbox.helpers)


def grade(submission: Path, options: GradeOptions) -> GradeResult:
    """Grade one submission file as ``options.config``'s assignment; always returns a
    result (a failed load scores 0)."""
    started = time.perf_counter()
    weights = options.config.weights
    assignment = get_assignment(options.config.assignment)
    base = dict(submission=str(submission), student_id=options.student_id,
                assignment=assignment.name, assignment_note=options.assignment_note,
                helpers=options.helpers.names, helper_notes=options.helpers.notes)
    # Its hidden checks, and any more the instructor gave, stay out of the student's reach
    # (checked where only file permissions would keep them so: no bubblewrap, no Landlock).
    sandbox = Sandbox(submission, require=assignment.functions,
                      constants=assignment.constants,
                      private=(*assignment.suite, *options.checks),
                      helpers=options.helpers.files)
    try:
        # An item with 0 points is off: it shows only when it checked something.
        nothing = tuple(ItemResult(name, points) for name, points in weights.items() if points)
        missing = () if options.suite else assignment.hidden_missing()
        if missing:   # a student handout: its public checks only
            return GradeResult(**base, items=nothing, grader_error=(
                f"the checks of the assignment {assignment.name} are not all installed "
                f"here (there is no {missing[0]}): it cannot be graded"))
        # The assignment prepares its run (the minimax: its positions and their tree
        # sizes) while the sandbox starts (it mostly waits for its process): a fifth of a
        # second of every grade.
        with ThreadPoolExecutor(max_workers=1) as pool:
            prepared = pool.submit(options.prepare or assignment.prepare, sandbox,
                                   options.config, options.exhaustive)
            try:
                sandbox.start()
                session = prepared.result()
            except LoadError as problem:
                prepared.cancel()
                return GradeResult(**base, items=nothing, load_error=problem.message,
                                   load_kind=problem.kind, isolation=sandbox.isolation,
                                   wall_seconds=time.perf_counter() - started)
            except SandboxError as problem:  # this machine cannot confine it: not graded
                prepared.cancel()
                return GradeResult(**base, items=nothing,
                                   grader_error=f"the student's code was not run: {problem}",
                                   wall_seconds=time.perf_counter() - started)
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM before the suite began
                prepared.cancel()
                return GradeResult(**base, items=nothing, load_output=sandbox.load_output,
                                   isolation=sandbox.isolation, grader_error=INTERRUPTED,
                                   wall_seconds=time.perf_counter() - started)
        plugin = GradingPlugin()
        assert sandbox.calibration is not None  # a started sandbox has timed the reference
        with _deferred_interrupts(sandbox), beside(sandbox.cpu):
            exit_code = _run_pytest([plugin, session.plugin,
                                     RunFacts(Path(submission), weights)],
                                    options.suite or assignment.suite, options,
                                    session.budget_seconds())
        items = _items(plugin, weights)
        grader_error = None
        if exit_code == pytest.ExitCode.INTERRUPTED or session.interrupted:
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
            wall_seconds=round(time.perf_counter() - started, 3),
            restarts=sandbox.restarts, isolation=sandbox.isolation,
            import_calls=sandbox.import_calls, course_imports=sandbox.course_imports,
            grader_error=grader_error, **session.result_fields())
    finally:
        sandbox.close()


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


def _run_pytest(plugins: list[object], suite: tuple[Path, ...], options: GradeOptions,
                budget: float) -> int:
    # The backstop is for the grader's own bugs: the budget stops slow students first.
    backstop = int(budget * 3 + 300)
    args = [*map(str, suite), *map(str, options.checks),
            "-c", str(PYTEST_INI), "--rootdir", str(Path(suite[0]).parent),
            "--import-mode=importlib", "-p", "no:cacheprovider", "-p", "no:terminal",
            # Only our plugins: whatever else pytest finds installed (anyio, hypothesis...)
            # costs a tenth of a second a grade, and must not change a grade.
            "--disable-plugin-autoload", "-p", "pytest_timeout",
            "-p", "no:stepwise", f"--timeout={backstop}", "--assert=plain",
            # These two run gc.collect() around every test: a tenth of a second for nothing.
            "-p", "no:unraisableexception", "-p", "no:threadexception",
            # pytest's plugins a grade never uses (none gives a test a fixture or a marker):
            # each costs its import and registration in every grade.
            *NOT_USED,
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

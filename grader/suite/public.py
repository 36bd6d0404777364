"""An assignment's public checks, run as a grade runs its suite: ``python -m student check``.

The grader's own engine (``grader.suite.engine.grade``) runs the assignment's
``public_checks`` (pytest files that are part of its suite, so every grade runs them too)
in a sandbox of their own, with the assignment's session (``prepare_public``, else
``prepare``): the same judge, the same words, the same seeds and limits as in a grade. Then,
when asked, its ``student_speed`` file in a fresh sandbox: speed as the grader judges it,
on this machine. The student's code runs only in the sandbox, never in this process.

Each public test is one check, named by its id (``@pytest.mark.parametrize(..., ids=...)``)
or else the first line of its docstring; tests of one name (a position judged in two
rubric items) are one check for the student. A check says what it recorded: the checks
that passed, the failures (each in the report's words), the notes, and what the student's
code printed during its calls.

    run = run_checks(Path("mc_player.py"), get("montecarlo"), on_check=print)
    run.load_error, [check.passed for check in run.checks]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import pytest

from grader.assignments.assignment import Assignment
from grader.judge.results import Failure, GradeResult
from grader.sandbox import Reply, Sandbox
from grader.sandbox.helpers import Helpers, helpers_beside
from grader.suite.config import Config, rubric_items
from grader.suite.engine import GradeOptions, grade

STUCK_CATEGORIES = ("timeout", "stuck")   # no answer in time: the checks after it stop
NOT_WRITTEN = "NotImplementedError"       # what the template's functions raise


@dataclass(frozen=True)
class Check:
    """One public check as it ran: its name and rubric item, the checks it recorded that
    passed, its failures (the report's words), its notes, what the student's code printed
    during its calls, and why it did not run (``skipped``) or the grader's own error."""

    name: str
    item: str
    passed: int = 0
    failures: tuple[Failure, ...] = ()
    notes: tuple[str, ...] = ()
    printed: str = ""
    skipped: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.failures and not self.skipped and not self.error and self.passed > 0

    @property
    def not_written(self) -> bool:
        """Every failure is the template's NotImplementedError: not written yet.

        >>> Check("c", "i", failures=(Failure("exception", "f()", "an answer",
        ...     "NotImplementedError: f is not written yet", judged=False),)).not_written
        True
        """
        return bool(self.failures) and all(
            not f.judged and f.received.startswith(NOT_WRITTEN) for f in self.failures)

    @property
    def stuck(self) -> bool:
        """A call of this check gave no answer in time."""
        return any(f.category in STUCK_CATEGORIES for f in self.failures)


@dataclass(frozen=True)
class PublicRun:
    """What one run of public checks (or of speed checks) found: the engine's result
    (the load, what the file printed and the games it starts when imported, the timing)
    and every check in the order it ran."""

    result: GradeResult
    checks: tuple[Check, ...] = ()
    stopped: str = ""     # why the checks after a point were not run

    @property
    def load_error(self) -> str | None:
        return self.result.load_error


def run_checks(submission: Path, assignment: Assignment, config: Config | None = None,
               on_check: Callable[[Check], None] | None = None,
               on_start: Callable[[int, Sandbox], None] | None = None,
               stop_when_stuck: bool = True, timed: str = "",
               helpers: bool = False) -> PublicRun:
    """Run ``assignment``'s public checks on ``submission``; ``on_start(checks, sandbox)``
    is told how many checks there are once the file is loaded, ``on_check`` each check as
    it ends. With ``stop_when_stuck`` the checks after one whose call gave no answer in
    time are not run (each would wait for its limit too), unless it was a call of the
    function ``timed`` that only ran out of its time (its speed is judged after them).
    With ``helpers``, the modules beside it that it imports go with it, as a student's own
    folder's do in a batch (``grader.sandbox.helpers``)."""
    if not assignment.public_checks:
        raise ValueError(f"the assignment {assignment.name} declares no public checks")
    return _run(submission, assignment, assignment.public_checks, config, on_check,
                on_start, stop_when_stuck, timed, helpers)


def run_speed(submission: Path, assignment: Assignment, config: Config | None = None,
              on_check: Callable[[Check], None] | None = None,
              on_start: Callable[[int, Sandbox], None] | None = None,
              helpers: bool = False) -> PublicRun | None:
    """Run ``assignment``'s speed checks on ``submission`` in a fresh sandbox (its time
    limits set by the reference timed there, as in a grade); None when it has none."""
    if assignment.student_speed is None:
        return None
    return _run(submission, assignment, (assignment.student_speed,), config, on_check,
                on_start, stop_when_stuck=False, helpers=helpers)


def _run(submission: Path, assignment: Assignment, files: tuple[Path, ...],
         config: Config | None, on_check: Callable[[Check], None] | None,
         on_start: Callable[[int, Sandbox], None] | None,
         stop_when_stuck: bool, timed: str = "", helpers: bool = False) -> PublicRun:
    config = config or Config.load(assignment=assignment.name)
    # Only the items these files score: the others are the hidden suite's business.
    items = rubric_items(files)
    config = replace(config, weights={name: config.weights.get(name, 0.0) for name in items})
    collector = Collector(assignment, on_check, on_start, stop_when_stuck, timed)

    def prepare(sandbox: Sandbox, config: Config, exhaustive: bool) -> _Session:
        printed = Printed(sandbox)
        inner = (assignment.prepare_public or assignment.prepare)(printed, config, exhaustive)
        collector.printed = printed
        return _Session(inner, collector)

    chosen = helpers_beside(Path(submission)) if helpers else Helpers()
    result = grade(Path(submission), GradeOptions(config=config, suite=tuple(files),
                                                  prepare=prepare, helpers=chosen))
    return PublicRun(result, tuple(collector.checks), collector.stopped)


class _Session:
    """The assignment's session, with the collector beside its fixtures."""

    def __init__(self, inner: Any, collector: "Collector") -> None:
        self.inner = inner
        collector.inner = inner.plugin
        self.plugin = collector

    @property
    def interrupted(self) -> bool:
        return self.inner.interrupted

    def budget_seconds(self) -> float:
        return self.inner.budget_seconds()

    def result_fields(self) -> dict[str, Any]:
        return self.inner.result_fields()


class Printed:
    """The sandbox as the session sees it, keeping what each call printed (in order)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox
        self.outputs: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sandbox, name)

    def _keep(self, reply: Reply) -> Reply:
        if reply.output:
            self.outputs.append(reply.output)
        return reply

    def call(self, *args: Any, **kwargs: Any) -> Reply:
        return self._keep(self._sandbox.call(*args, **kwargs))

    def invoke(self, *args: Any, **kwargs: Any) -> Reply:
        return self._keep(self._sandbox.invoke(*args, **kwargs))

    def call_batch(self, *args: Any, **kwargs: Any) -> list[Reply] | None:
        replies = self._sandbox.call_batch(*args, **kwargs)
        for reply in replies or ():
            self._keep(reply)
        return replies


class Collector:
    """A pytest plugin beside the assignment's: it registers the assignment's fixtures,
    names each test's check, and keeps what the test recorded."""

    def __init__(self, assignment: Assignment, on_check: Callable[[Check], None] | None,
                 on_start: Callable[[int, Sandbox], None] | None,
                 stop_when_stuck: bool, timed: str = "") -> None:
        self.assignment = assignment
        self.timed = timed
        self.on_check = on_check
        self.on_start = on_start
        self.stop_when_stuck = stop_when_stuck
        self.inner: object = None
        self.printed: Printed | None = None
        self.checks: list[Check] = []
        self.stopped = ""
        self._config: pytest.Config | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.register(self.inner, "assignment-session")
        self._config = config

    def _told(self, tell: Callable[..., None], *args: Any) -> None:
        """Call back the front end with pytest's capture of output suspended: it prints."""
        capture = self._config.pluginmanager.getplugin("capturemanager") if self._config else None
        if capture is None:
            tell(*args)
            return
        with capture.global_and_fixture_disabled():
            tell(*args)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """The tests of one check (a position judged in two items) one after the other,
        in the order their checks first come: the student reads one line per check."""
        first: dict[str, int] = {}
        for index, item in enumerate(items):
            first.setdefault(check_name(item), index)
        items.sort(key=lambda item: first[check_name(item)])

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.on_start is not None and self.printed is not None:
            names = dict.fromkeys(check_name(item) for item in session.items)
            self._told(self.on_start, len(names), self.printed)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        if self.stopped:
            # Skipped as it is called, its fixtures set up: its item is scored (no check
            # made), as a grade's would be, and not missing.
            self._add(Check(check_name(item), _item_of(item), skipped=self.stopped))
            pytest.skip(self.stopped)
        record = getattr(item, "funcargs", {}).get("record")
        before = _snapshot(record)
        printed = len(self.printed.outputs) if self.printed is not None else 0
        error = ""
        try:
            return (yield)
        except BaseException as exc:   # the grader's own bug in a check: said, not hidden
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            after = _snapshot(record)
            output = "".join(self.printed.outputs[printed:]) if self.printed is not None else ""
            check = Check(check_name(item), _item_of(item), after[0] - before[0],
                          tuple(after[1][len(before[1]):]),
                          tuple(note for note in after[2] if note not in before[2]),
                          output, error=error)
            self._add(check)
            if self.stop_when_stuck and check.stuck and not self.stopped:
                function = _function_of(check.failures, self.assignment)
                slow = {f.category for f in check.failures} == {"timeout"}
                if not (slow and function == self.timed):
                    self.stopped = f"{function} did not return on \"{check.name}\""

    def _add(self, check: Check) -> None:
        self.checks.append(check)
        if self.on_check is not None:
            self._told(self.on_check, check)


def check_name(item: pytest.Item) -> str:
    """A test's check name: its parametrized id, else its docstring's first line, else its
    name."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        return callspec.id
    doc = (getattr(getattr(item, "function", None), "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else item.name


def _item_of(item: pytest.Item) -> str:
    marker = item.get_closest_marker("rubric")
    return str(marker.args[0]) if marker is not None and marker.args else item.name


def _snapshot(record: Any) -> tuple[int, list[Failure], list[str]]:
    if record is None:
        return 0, [], []
    return record.passed, list(record.failures), list(record.notes)


def _function_of(failures: tuple[Failure, ...], assignment: Assignment) -> str:
    """The student's function a failed call called (its pasteable call names it).

    >>> from grader.assignments import get
    >>> _function_of((Failure("timeout", "random.seed(1); mc_move(b, PLAYERX, 9)", "", ""),),
    ...              get("montecarlo"))
    'mc_move'
    """
    names = (*assignment.functions, "move_wrapper")
    for failure in failures:
        found = re.search(r"\b(" + "|".join(map(re.escape, names)) + r")\(", failure.call)
        if found:
            return found.group(1)
    return "a call"


__all__ = ["Check", "PublicRun", "run_checks", "run_speed", "check_name"]

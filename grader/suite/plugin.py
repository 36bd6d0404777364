"""The pytest plugin that connects the hidden suite to one submission.

It provides the fixtures the rubric tests take (``student``, ``hidden``, ``solver``,
``record``), reads each test's ``rubric`` marker, and keeps what the tests recorded: per
item, checks passed, failed, or not judged (no answer).

When the environment variable ``TTT_GRADER_PROGRESS`` names a file, each finished test
appends one JSON line to it with its rubric item's counts so far, for a page that shows
items as they finish (``grader serve``)::

    {"name": "scores", "passed": 661, "total": 661, "failed": 0, "no_answer": 0, "error": false}
"""

from __future__ import annotations

import json
import os
from typing import Iterator

import pytest

from grader.judge.positions import HiddenPositions
from grader.judge.results import Failure
from grader.judge.solver import Solver
from grader.suite.client import StudentClient

PROGRESS_VARIABLE = "TTT_GRADER_PROGRESS"


class Recorder:
    """What one rubric test found: checks passed, failed, or not judged (no answer)."""

    def __init__(self) -> None:
        self.passed = 0
        self.total = 0
        self.no_answer = 0
        self.failures: list[Failure] = []
        self.notes: list[str] = []

    def check(self, failure: Failure | None) -> bool:
        """Count one check: ``None`` passed; a failure with ``judged=False`` had no answer."""
        self.total += 1
        if failure is None:
            self.passed += 1
        else:
            self.no_answer += not failure.judged
            self.failures.append(failure)
        return failure is None

    def note(self, *notes: str) -> None:
        for note in notes:
            if note not in self.notes:
                self.notes.append(note)


class GradingPlugin:
    """The pytest plugin that connects the hidden suite to one submission."""

    def __init__(self, client: StudentClient, hidden: HiddenPositions) -> None:
        # Underscored: the fixtures below take the plain names.
        self._client = client
        self._hidden = hidden
        self._planned = False
        self.records: dict[str, Recorder] = {}
        self.order: list[str] = []
        self.item_names: dict[str, str] = {}   # test node id -> rubric item
        self.errors: dict[str, str] = {}       # rubric item (or "collecting ...") -> traceback
        self._progress = os.environ.get(PROGRESS_VARIABLE) or None

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line(
            "markers", "rubric(name, last=False): the rubric item a test scores; "
            "last=True runs it after the others")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=lambda item: bool(_rubric(item)[1]))  # stable: "last" items at the end
        for item in items:
            name = _rubric(item)[0]
            self.item_names[item.nodeid] = name
            if name not in self.order:
                self.order.append(name)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors[f"collecting {report.nodeid or 'the suite'}"] = report.longreprtext

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = self.item_names.get(report.nodeid, report.nodeid)
        if report.failed:
            self.errors[name] = report.longreprtext
        if report.when == "teardown" and self._progress is not None:
            self._report_progress(name)

    def _report_progress(self, name: str) -> None:
        """One line for the page that shows progress; a page that cannot be told is no
        reason to stop grading."""
        record = self.records.get(name, Recorder())
        line = json.dumps({"name": name, "passed": record.passed, "total": record.total,
                           "failed": record.total - record.passed - record.no_answer,
                           "no_answer": record.no_answer, "error": name in self.errors})
        try:
            with open(self._progress, "a", encoding="utf-8") as file:  # type: ignore[arg-type]
                file.write(line + "\n")
        except OSError:
            self._progress = None

    @pytest.fixture(scope="session")
    def student(self) -> StudentClient:
        if not self._planned:  # every hidden position first, tier by tier (grader.timing.pacing)
            self._planned = True
            self._client.run_plan()
        return self._client

    @pytest.fixture(scope="session")
    def hidden(self) -> HiddenPositions:
        return self._hidden

    @pytest.fixture(scope="session")
    def solver(self) -> Solver:
        return self._client.solver

    @pytest.fixture
    def record(self, request: pytest.FixtureRequest) -> Iterator[Recorder]:
        name = _rubric(request.node)[0]
        yield self.records.setdefault(name, Recorder())


def _rubric(item: pytest.Item) -> tuple[str, bool]:
    marker = item.get_closest_marker("rubric")
    if marker is None or not marker.args:
        return item.name, False
    return str(marker.args[0]), bool(marker.kwargs.get("last", False))

"""The pytest plugin that connects the hidden suite to one submission.

It provides the ``record`` fixture the rubric tests take (the assignment's session provides
the others: the minimax's ``student``, ``hidden``, ``solver``), reads each test's
``rubric`` marker, and keeps what the tests recorded: per item, checks passed, failed, or
not judged (no answer).

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

from grader.judge.results import Failure

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
    """The pytest plugin that keeps what the hidden tests recorded, per rubric item (the
    assignment's session provides the fixtures that ask the student's code)."""

    def __init__(self) -> None:
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

    @pytest.fixture
    def record(self, request: pytest.FixtureRequest) -> Iterator[Recorder]:
        name = _rubric(request.node)[0]
        yield self.records.setdefault(name, Recorder())


def _rubric(item: pytest.Item) -> tuple[str, bool]:
    marker = item.get_closest_marker("rubric")
    if marker is None or not marker.args:
        return item.name, False
    return str(marker.args[0]), bool(marker.kwargs.get("last", False))

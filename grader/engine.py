"""One grading run: load the submission in its sandbox, run the hidden suite, collect results.

The hidden suite is made of pytest tests (``grader/suite``); this module runs
them through pytest's own API with a small plugin that provides the fixtures
(``student``, ``hidden``, ``solver``, ``seed``, ``record``), reads each test's
``rubric`` marker, and turns what the tests recorded into a ``GradeResult``.
pytest-timeout stops a test that runs away, as a backstop.

    result = grade(Path("submission.py"), GradeOptions(student_id="alice"))
    print(result.score)
"""

from __future__ import annotations

import configparser
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from grader.client import StudentClient
from grader.positions import HiddenPositions, hidden_positions, seed_for
from grader.results import Failure, GradeResult, ItemResult
from grader.sandbox import LoadError, Sandbox
from grader.solver import Solver
from grader.timing import TimePolicy, calibrate

SUITE = Path(__file__).parent / "suite"
INTERRUPTED = "interrupted before the end: the report covers what was finished"
DEFAULT_CONFIG = Path(__file__).parent / "default.cfg"


class ConfigError(ValueError):
    """The grader's configuration file is missing or wrong."""


@dataclass(frozen=True)
class Config:
    """The rubric's weights, the time policy and the secret, read from an INI file."""

    weights: dict[str, float]
    policy: TimePolicy = TimePolicy()
    secret: str = ""
    examples: int = 3

    @classmethod
    def load(cls, path: Path | None = None) -> "Config":
        """Read ``path`` (default: grader/default.cfg); TTT_GRADER_SECRET overrides the secret.

        >>> sum(Config.load().weights.values())
        100.0
        """
        parser = configparser.ConfigParser()
        path = path or DEFAULT_CONFIG
        try:
            with open(path, encoding="utf-8") as file:
                parser.read_file(file)
            weights = {name: parser.getfloat("rubric", name) for name in parser["rubric"]}
            policy = TimePolicy(factor=parser.getfloat("time", "factor", fallback=10.0),
                                floor=parser.getfloat("time", "floor", fallback=1.0),
                                budget_searches=parser.getfloat("time", "budget searches",
                                                                fallback=60.0))
            secret = parser.get("grader", "secret", fallback="")
            examples = parser.getint("grader", "examples", fallback=3)
        except (OSError, configparser.Error, ValueError, KeyError) as problem:
            raise ConfigError(f"cannot read the configuration {path}: {problem}") from None
        return cls(weights, policy, os.environ.get("TTT_GRADER_SECRET", secret), examples)


@dataclass(frozen=True)
class GradeOptions:
    student_id: str = ""
    seed: int | None = None           # None: derived from the secret and the student id
    exhaustive: bool = False          # every reachable 3x3 position instead of a sample
    config: Config = field(default_factory=Config.load)
    checks: tuple[Path, ...] = ()     # more test files or folders (extra rubric items)

    def run_seed(self) -> int:
        return self.seed if self.seed is not None else seed_for(self.config.secret,
                                                                 self.student_id)


class Recorder:
    """What one rubric test found: checks passed out of checks made, and the failures."""

    def __init__(self) -> None:
        self.passed = 0
        self.total = 0
        self.failures: list[Failure] = []
        self.notes: list[str] = []

    def check(self, failure: Failure | None) -> bool:
        """Count one check; ``None`` means it passed."""
        self.total += 1
        if failure is None:
            self.passed += 1
        else:
            self.failures.append(failure)
        return failure is None

    def note(self, *notes: str) -> None:
        for note in notes:
            if note not in self.notes:
                self.notes.append(note)


class GradingPlugin:
    """The pytest plugin that connects the hidden suite to one submission."""

    def __init__(self, client: StudentClient, hidden: HiddenPositions, seed: int) -> None:
        # Underscored: the fixtures below take the plain names.
        self._client = client
        self._hidden = hidden
        self._seed = seed
        self.records: dict[str, Recorder] = {}
        self.order: list[str] = []
        self.item_names: dict[str, str] = {}   # test node id -> rubric item
        self.errors: dict[str, str] = {}       # rubric item (or "collecting ...") -> traceback

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
        if report.failed:
            self.errors[self.item_names.get(report.nodeid, report.nodeid)] = report.longreprtext

    @pytest.fixture(scope="session")
    def student(self) -> StudentClient:
        return self._client

    @pytest.fixture(scope="session")
    def hidden(self) -> HiddenPositions:
        return self._hidden

    @pytest.fixture(scope="session")
    def solver(self) -> Solver:
        return self._client.solver

    @pytest.fixture(scope="session")
    def seed(self) -> int:
        return self._seed

    @pytest.fixture
    def record(self, request: pytest.FixtureRequest) -> Iterator[Recorder]:
        name = _rubric(request.node)[0]
        yield self.records.setdefault(name, Recorder())


def _rubric(item: pytest.Item) -> tuple[str, bool]:
    marker = item.get_closest_marker("rubric")
    if marker is None or not marker.args:
        return item.name, False
    return str(marker.args[0]), bool(marker.kwargs.get("last", False))


def grade(submission: Path, options: GradeOptions) -> GradeResult:
    """Grade one submission file; always returns a result (a failed load scores 0)."""
    started = time.perf_counter()
    seed = options.run_seed()
    weights = options.config.weights
    base = dict(submission=str(submission), student_id=options.student_id, seed=seed)
    sandbox = Sandbox(submission)
    try:
        nothing = tuple(ItemResult(name, points) for name, points in weights.items())
        try:
            sandbox.start()
            seconds_per_node = calibrate(repeats=2)
            solver = Solver()
            client = StudentClient(sandbox, solver, options.config.policy, seconds_per_node)
            hidden = hidden_positions(seed, exhaustive=options.exhaustive)
        except LoadError as problem:
            return GradeResult(**base, items=nothing, load_error=problem.message,
                               load_kind=problem.kind, isolation=sandbox.isolation,
                               wall_seconds=time.perf_counter() - started)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM before the suite began: nothing graded
            return GradeResult(**base, items=nothing, load_output=sandbox.load_output,
                               isolation=sandbox.isolation, grader_error=INTERRUPTED,
                               wall_seconds=time.perf_counter() - started)
        plugin = GradingPlugin(client, hidden, seed)
        exit_code = _run_pytest(plugin, options, client.budget)
        items = _items(plugin, weights)
        grader_error = None
        if exit_code == pytest.ExitCode.INTERRUPTED:
            grader_error = INTERRUPTED
        elif exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or plugin.errors:
            grader_error = "; ".join(f"{where}: {_last_line(text)}"
                                     for where, text in plugin.errors.items()) \
                or f"pytest exited with {exit_code!r}"
        return GradeResult(
            **base, items=items, load_output=sandbox.load_output,
            student_cpu_seconds=round(client.stats.cpu_seconds, 3),
            wall_seconds=round(time.perf_counter() - started, 3),
            calls=client.stats.calls, timeouts=client.stats.timeouts,
            restarts=sandbox.restarts, isolation=sandbox.isolation,
            calibration={"seconds_per_node": seconds_per_node,
                         "budget_seconds": round(client.budget, 1),
                         "factor": options.config.policy.factor,
                         "floor_seconds": options.config.policy.floor},
            grader_error=grader_error)
    finally:
        sandbox.close()


def _run_pytest(plugin: GradingPlugin, options: GradeOptions, budget: float) -> int:
    # The backstop is for the grader's own bugs: the budget stops slow students first.
    backstop = int(budget * 2 + 300)
    args = [str(SUITE), *map(str, options.checks),
            "-c", str(SUITE / "pytest.ini"), "--rootdir", str(SUITE),
            "--import-mode=importlib", "-p", "no:cacheprovider", "-p", "no:terminal",
            "-p", "no:stepwise", f"--timeout={backstop}", "--assert=plain",
            # These two run gc.collect() around every test: a tenth of a second for nothing.
            "-p", "no:unraisableexception", "-p", "no:threadexception",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    return pytest.main(args, plugins=[plugin])


def _items(plugin: GradingPlugin, weights: dict[str, float]) -> tuple[ItemResult, ...]:
    names = list(weights) + [name for name in plugin.order if name not in weights]
    items = []
    for name in names:
        record = plugin.records.get(name)
        error = _last_line(plugin.errors[name]) if name in plugin.errors else None
        if record is None:
            error = error or "no test in the suite scores this item"
            items.append(ItemResult(name, weights.get(name, 0.0), error=error))
            continue
        items.append(ItemResult(name, weights.get(name, 0.0), record.passed, record.total,
                                tuple(record.failures), tuple(record.notes), error))
    return tuple(items)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[-1] if lines else "unknown error"

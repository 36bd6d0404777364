"""The batch's output folder: where each result goes, what is done, and the lock that
keeps two batches out of one folder. A submission is kept by its student and assignment
(a student may hand in several assignments): it is done when
``DIR/results/ASSIGNMENT/ID.json`` exists, parses, and was graded under this batch's
configuration of that assignment and grader version (see
``grader.suite.config.GradedUnder``); nothing else is ever written there. A folder of an
earlier batch (``DIR/results/ID.json``, one assignment for all) is moved to this layout
when a batch opens it, each result by the assignment it records.

>>> load_results(Path("/no/such/file.json")) is None
True
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from grader.assignments.assignment import NAME
from grader.assignments.registry import DEFAULT as DEFAULT_ASSIGNMENT
from grader.classroom import gradebook
from grader.classroom.discover import Submission
from grader.classroom.run import GradingOptions
from grader.suite.config import Config, GradedUnder, describe


class BatchLockedError(Exception):
    """Another batch is writing to the same output folder."""


class ConfigurationChangedError(Exception):
    """DIR holds results graded under another configuration or grader version than this
    batch's; the message counts them, says what differs and names ``--regrade-changed``."""


class OutputFolder:
    """The output folder DIR of a batch (layout in the module docstring).

    >>> import tempfile
    >>> folder = OutputFolder(Path(tempfile.mkdtemp()))
    >>> folder.result("alice", "montecarlo").relative_to(folder.root).as_posix()
    'results/montecarlo/alice.json'
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.results = self.root / "results"
        self.reports = self.root / "reports"
        self.logs = self.root / "logs"
        self.work = self.root / ".work"
        self.pending = self.work / "pending"
        self.gradebook = self.root / "gradebook.csv"
        self.summary = self.root / "summary.html"

    def result(self, student_id: str, assignment: str = DEFAULT_ASSIGNMENT) -> Path:
        """Where the result of ``student_id``'s ``assignment`` is (the truth)."""
        return self.results / assignment / f"{student_id}.json"

    def report(self, student_id: str, assignment: str = DEFAULT_ASSIGNMENT) -> Path:
        """Where its text report is (for the student)."""
        return self.reports / assignment / f"{student_id}.txt"

    def log(self, student_id: str, assignment: str = DEFAULT_ASSIGNMENT) -> Path:
        """Where what the grader said is, when it could not grade it."""
        return self.logs / assignment / f"{student_id}.log"

    def prepare(self) -> int:
        """Create the folders; remove what an interrupted batch left half-done; move an
        earlier batch's results to this layout (how many were moved)."""
        for folder in (self.results, self.reports, self.logs, self.work):
            folder.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.pending, ignore_errors=True)
        self.pending.mkdir(parents=True, exist_ok=True)
        for pattern in (".*.tmp", "*/.*.tmp"):      # write_text_atomic's temporary files
            for folder in (self.results, self.reports, self.root):
                for leftover in folder.glob(pattern):
                    leftover.unlink(missing_ok=True)
        return self._move_earlier_layout()

    def _move_earlier_layout(self) -> int:
        """Move each ``results/ID.json`` of an earlier batch (and its ``reports/ID.txt``)
        into its assignment's folder: the one it records (the minimax for a grader that
        recorded none). Its report first, so that a move cut short is finished next time;
        a result already in the new place is never replaced. How many results were moved."""
        moved = 0
        for path in sorted(self.results.glob("*.json")):
            data = load_results(path)
            if data is None:            # not a result: never taken for one, left as it is
                continue
            student_id = path.stem
            assignment = recorded_assignment(data)
            target = self.result(student_id, assignment)
            if target.exists():
                continue
            report = self.reports / f"{student_id}.txt"
            if report.exists() and not self.report(student_id, assignment).exists():
                self.report(student_id, assignment).parent.mkdir(parents=True, exist_ok=True)
                os.replace(report, self.report(student_id, assignment))
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            moved += 1
        return moved

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold DIR/.work/lock while the batch runs (released even on SIGKILL)."""
        self.work.mkdir(parents=True, exist_ok=True)
        with open(self.work / "lock", "w") as lock:
            try:
                import fcntl
            except ImportError:           # pragma: no cover - Windows: no lock
                yield
                return
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise BatchLockedError(f"another batch is writing to {self.root}; "
                                       "wait for it or stop it first") from None
            yield

    def load_result(self, student_id: str,
                    assignment: str = DEFAULT_ASSIGNMENT) -> dict[str, Any] | None:
        """The results.json of ``student_id``'s ``assignment`` when it exists and parses,
        else None."""
        return load_results(self.result(student_id, assignment))


def load_results(path: Path) -> dict[str, Any] | None:
    """``path`` as Gradescope results (a dict with a score and tests), or None.

    >>> load_results(Path("/no/such/file.json")) is None
    True
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) \
            or not isinstance(data.get("score"), (int, float)):
        return None
    return data


@dataclass(frozen=True)
class Plan:
    """What a batch found before it started grading. ``changed``: those whose result was
    graded under another configuration or grader version (also in ``to_grade`` when the
    batch regrades them)."""

    to_grade: tuple[Submission, ...]
    done: tuple[Submission, ...]
    not_graded: tuple[Submission, ...]
    changed: tuple[Submission, ...] = ()


def recorded_assignment(data: dict[str, Any]) -> str:
    """The assignment a result says it was graded as (the minimax for a grader that did not
    say: the only one there was).

    >>> recorded_assignment({"extra_data": {"assignment": "montecarlo"}})
    'montecarlo'
    >>> recorded_assignment({"extra_data": {}})
    'minimax'
    """
    extra = data.get("extra_data")
    name = extra.get("assignment") if isinstance(extra, dict) else None
    return name if isinstance(name, str) and NAME.match(name) else DEFAULT_ASSIGNMENT


def graded_under(options: GradingOptions) -> GradedUnder:
    """What each grading run of a batch with ``options`` grades under (it must match what
    ``python -m grader grade`` records with the same options).

    >>> graded_under(GradingOptions()).name
    'default'
    """
    config = Config.load(options.config, options.checks, options.assignment_name)
    return GradedUnder.of(config, options.config.name if options.config else "default",
                          exhaustive=options.exhaustive, visibility=options.visibility,
                          leaderboard=options.leaderboard, checks=options.checks)


def graded_under_each(options: GradingOptions,
                      submissions: Iterable[Submission]) -> dict[str, GradedUnder]:
    """What a batch with ``options`` grades each of its submissions' assignments under.

    >>> list(graded_under_each(GradingOptions(), [Submission("a", None, assignment="montecarlo")]))
    ['montecarlo']
    """
    names = dict.fromkeys(submission.key[0] for submission in submissions)
    return {name: graded_under(replace(options, assignment=name)) for name in names}


def recorded_configuration(data: dict[str, Any]) -> dict[str, Any] | None:
    """What a result says it was graded under (None: an earlier grader did not say)."""
    extra = data.get("extra_data")
    recorded = extra.get("configuration") if isinstance(extra, dict) else None
    return recorded if isinstance(recorded, dict) else None


def plan_batch(submissions: list[Submission], folder: OutputFolder, regrade: bool,
               expected: Mapping[str, GradedUnder] | None = None,
               regrade_changed: bool = False) -> Plan:
    """Sort the submissions into to grade, already done (a result parses, graded under
    its assignment's ``expected`` when given), changed (graded under something else: to
    grade again only with ``regrade_changed``) and not graded."""
    to_grade, done, not_graded, changed = [], [], [], []
    for submission in submissions:
        assignment, student_id = submission.key
        data = None if regrade else folder.load_result(student_id, assignment)
        wanted = None if expected is None else expected.get(assignment)
        if submission.problem is not None:
            not_graded.append(submission)
        elif data is None:
            to_grade.append(submission)
        elif wanted is not None and _fingerprint(data) != wanted.fingerprint:
            changed.append(submission)
            if regrade_changed:
                to_grade.append(submission)
        else:
            done.append(submission)
    return Plan(tuple(to_grade), tuple(done), tuple(not_graded), tuple(changed))


def _fingerprint(data: dict[str, Any]) -> str | None:
    recorded = recorded_configuration(data)
    return None if recorded is None else recorded.get("fingerprint")


def changed_message(plan: Plan, folder: OutputFolder,
                    expected: Mapping[str, GradedUnder]) -> str:
    """Why a batch will not grade into ``folder``: how many results were graded under what,
    what differs from this run, and the options that settle it."""
    under: Counter[str] = Counter()
    described: dict[str, str] = {}
    differences: list[str] = []
    this_run: dict[str, GradedUnder] = {}
    for submission in plan.changed:
        assignment, student_id = submission.key
        data = folder.load_result(student_id, assignment) or {}
        recorded = recorded_configuration(data)
        key = _fingerprint(data) or "unrecorded"
        under[key] += 1
        described[key] = describe(recorded)
        this_run[assignment] = expected[assignment]
        differences += [d for d in expected[assignment].differences(recorded)
                        if d not in differences]
    count = len(plan.changed)
    lines = [f"{folder.root} holds {count} result{'s' * (count != 1)} graded under another "
             "configuration or grader version than this run's:"]
    lines += [f"  {number} under {key}: {described[key]}" for key, number in under.most_common()]
    lines += [f"  this run{f' ({name})' * (len(this_run) > 1)}: {wanted.fingerprint}: "
              f"{wanted.describe()}" for name, wanted in this_run.items()]
    lines.append("  what differs: " + "; ".join(differences[:6])
                 + (f"; and {len(differences) - 6} more" if len(differences) > 6 else ""))
    those = "it" if count == 1 else f"those {count}"
    lines.append("Grading now would mix configurations in one class. Run the same command "
                 f"with --regrade-changed to grade {those} again under this run's "
                 "(the others are kept; it can be stopped and run again), or with --regrade "
                 "to grade every submission again; or give the options they were graded "
                 "with, or another --out.")
    return "\n".join(lines)


# Why a submission has no result yet: the batch is on its way to it, or was stopped first.
WAITING = "waiting its turn (the batch is still grading)"
INTERRUPTED = ("the batch was stopped before grading it; run the same command again to "
               "grade it")


def row_for(submission: Submission, folder: OutputFolder,
            failure: str | None = None, pending: str = WAITING) -> gradebook.Row:
    """The gradebook row of ``submission`` from what DIR holds now (``pending``: why it has
    no result when its grading has not ended)."""
    extra: dict[str, Any] = dict(name=submission.name, late=submission.late,
                                 source=submission.source, people=submission.people,
                                 submitted_at=submission.submitted_at,
                                 roster=submission.roster, assignment=submission.assignment)
    if submission.problem is not None:
        return gradebook.not_graded_row(submission.student_id, submission.problem, **extra)
    assignment, student_id = submission.key
    data = folder.load_result(student_id, assignment)
    if data is not None:
        return gradebook.row_from_results(submission.student_id, data, **extra)
    return gradebook.not_graded_row(submission.student_id, failure or pending, **extra)

"""The batch's output folder: where each result goes, what is done, and the lock that
keeps two batches out of one folder. A submission is done when ``DIR/results/ID.json``
exists, parses, and was graded under this batch's configuration and grader version
(see ``grader.suite.config.GradedUnder``); nothing else is ever written there.

>>> load_results(Path("/no/such/file.json")) is None
True
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

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
    >>> folder.result("alice").name
    'alice.json'
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

    def result(self, student_id: str) -> Path:
        return self.results / f"{student_id}.json"

    def prepare(self) -> None:
        """Create the folders; remove what an interrupted batch left half-done."""
        for folder in (self.results, self.reports, self.logs, self.work):
            folder.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.pending, ignore_errors=True)
        self.pending.mkdir(parents=True, exist_ok=True)
        for folder in (self.results, self.reports, self.root):
            for leftover in folder.glob(".*.tmp"):      # write_text_atomic's temporary files
                leftover.unlink(missing_ok=True)

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

    def load_result(self, student_id: str) -> dict[str, Any] | None:
        """The results.json of ``student_id`` when it exists and parses, else None."""
        return load_results(self.result(student_id))


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


def recorded_configuration(data: dict[str, Any]) -> dict[str, Any] | None:
    """What a result says it was graded under (None: an earlier grader did not say)."""
    extra = data.get("extra_data")
    recorded = extra.get("configuration") if isinstance(extra, dict) else None
    return recorded if isinstance(recorded, dict) else None


def plan_batch(submissions: list[Submission], folder: OutputFolder, regrade: bool,
               expected: GradedUnder | None = None, regrade_changed: bool = False) -> Plan:
    """Sort the submissions into to grade, already done (a result parses, graded under
    ``expected`` when given), changed (graded under something else: to grade again only
    with ``regrade_changed``) and not graded."""
    to_grade, done, not_graded, changed = [], [], [], []
    for submission in submissions:
        data = None if regrade else folder.load_result(submission.student_id)
        if submission.problem is not None:
            not_graded.append(submission)
        elif data is None:
            to_grade.append(submission)
        elif expected is not None and _fingerprint(data) != expected.fingerprint:
            changed.append(submission)
            if regrade_changed:
                to_grade.append(submission)
        else:
            done.append(submission)
    return Plan(tuple(to_grade), tuple(done), tuple(not_graded), tuple(changed))


def _fingerprint(data: dict[str, Any]) -> str | None:
    recorded = recorded_configuration(data)
    return None if recorded is None else recorded.get("fingerprint")


def changed_message(plan: Plan, folder: OutputFolder, expected: GradedUnder) -> str:
    """Why a batch will not grade into ``folder``: how many results were graded under what,
    what differs from this run, and the options that settle it."""
    under: Counter[str] = Counter()
    described: dict[str, str] = {}
    differences: list[str] = []
    for submission in plan.changed:
        data = folder.load_result(submission.student_id) or {}
        recorded = recorded_configuration(data)
        key = _fingerprint(data) or "unrecorded"
        under[key] += 1
        described[key] = describe(recorded)
        differences += [d for d in expected.differences(recorded) if d not in differences]
    count = len(plan.changed)
    lines = [f"{folder.root} holds {count} result{'s' * (count != 1)} graded under another "
             "configuration or grader version than this run's:"]
    lines += [f"  {number} under {key}: {described[key]}" for key, number in under.most_common()]
    lines.append(f"  this run: {expected.fingerprint}: {expected.describe()}")
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
                                 roster=submission.roster)
    if submission.problem is not None:
        return gradebook.not_graded_row(submission.student_id, submission.problem, **extra)
    data = folder.load_result(submission.student_id)
    if data is not None:
        return gradebook.row_from_results(submission.student_id, data, **extra)
    return gradebook.not_graded_row(submission.student_id, failure or pending, **extra)

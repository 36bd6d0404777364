"""The batch's output folder: where each result goes, what is done, and the lock that
keeps two batches out of one folder. A submission is done when ``DIR/results/ID.json``
exists and parses; nothing else is ever written there.

>>> load_results(Path("/no/such/file.json")) is None
True
"""

from __future__ import annotations

import contextlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from grader.classroom import gradebook
from grader.classroom.discover import Submission


class BatchLockedError(Exception):
    """Another batch is writing to the same output folder."""


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
    """What a batch found before it started grading."""

    to_grade: tuple[Submission, ...]
    done: tuple[Submission, ...]
    not_graded: tuple[Submission, ...]


def plan_batch(submissions: list[Submission], folder: OutputFolder, regrade: bool) -> Plan:
    """Sort the submissions into to grade, already done (a result parses) and not graded."""
    to_grade, done, not_graded = [], [], []
    for submission in submissions:
        if submission.problem is not None:
            not_graded.append(submission)
        elif not regrade and folder.load_result(submission.student_id) is not None:
            done.append(submission)
        else:
            to_grade.append(submission)
    return Plan(tuple(to_grade), tuple(done), tuple(not_graded))


def row_for(submission: Submission, folder: OutputFolder,
            failure: str | None = None) -> gradebook.Row:
    """The gradebook row of ``submission`` from what DIR holds now."""
    extra: dict[str, Any] = dict(name=submission.name, late=submission.late,
                                 source=submission.source)
    if submission.problem is not None:
        return gradebook.not_graded_row(submission.student_id, submission.problem, **extra)
    data = folder.load_result(submission.student_id)
    if data is not None:
        return gradebook.row_from_results(submission.student_id, data, **extra)
    return gradebook.not_graded_row(submission.student_id, failure or "not graded yet",
                                    **extra)

"""Grade a whole class: every submission in its own grading process, results kept as they
come, and a batch that was stopped goes on where it stopped.

    outcome = run_batch(submissions, BatchOptions(out=Path("grades")), LocalRunner(jobs=2))

Every submission is graded by its own ``python -m grader grade`` subprocess (its own
sandbox), so a hostile or broken submission costs its own row and never the batch. Each
result is written as soon as it is done, and the gradebook after it, so a batch killed at
any moment (even with SIGKILL) goes on where it stopped when the same command runs again.

The output folder (``grader.classroom.state``)::

    DIR/results/ID.json    Gradescope's results.json of each graded submission (the truth)
    DIR/reports/ID.txt     the text report of each graded submission (for the student)
    DIR/logs/ID.log        what the grader said when it could not grade a submission
    DIR/gradebook.csv      one row per submission (see grader.classroom.gradebook), and
                           per roster student who handed in nothing (grader.classroom.records)
    DIR/gradebook-canvas.csv, gradebook-moodle.csv   as each LMS imports them (``lms``)
    DIR/summary.html       the class summary page (see grader.classroom.summary)
    DIR/similarity.csv     with ``similarity``: pairs that share code (grader.classroom.similarity)
    DIR/similarity/        ...and the most similar pairs side by side
    DIR/.work/             scratch space: the unzipped submissions, grading in progress
"""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grader.classroom import gradebook, lms, summary
from grader.classroom.discover import Submission
from grader.classroom.records import Matched, match_roster, missing_row
from grader.classroom.roster import Roster
from grader.classroom.run import (DEFAULT_TIMEOUT, GRACE_SECONDS, Attempt, GradingOptions, Job,
                                  Runner)
from grader.classroom.similarity import Similarity, SimilarityOptions, compare_and_write
from grader.classroom.state import (INTERRUPTED, ConfigurationChangedError, OutputFolder,
                                    Plan, changed_message, graded_under, plan_batch, row_for)
from grader.suite import writers

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_write_text = writers.write_text_atomic


@dataclass(frozen=True)
class BatchOptions:
    """How a batch runs: where it writes, what it regrades (``regrade``: everything;
    ``regrade_changed``: what was graded under another configuration or grader version),
    how long a run may take, and whether it compares the submissions' code (never a
    grade: see ``similarity``); and the books around the grades: the class's ``roster``
    (who handed in nothing: a score of 0 with ``missing_zero``), and the gradebooks an
    LMS imports (``lms_formats``: "canvas", "moodle"; the grade column named
    ``assignment``; a student in several submissions: their ``choice``, latest or best)."""

    out: Path
    grading: GradingOptions = GradingOptions()
    regrade: bool = False
    regrade_changed: bool = False
    timeout: float | None = DEFAULT_TIMEOUT
    similarity: SimilarityOptions | None = None
    roster: Roster | None = None
    missing_zero: bool = False
    lms_formats: tuple[str, ...] = ()
    assignment: str = lms.DEFAULT_ASSIGNMENT
    choice: str = "latest"


@dataclass(frozen=True)
class Finished:
    """One submission whose grading run ended in this batch."""

    submission: Submission
    row: gradebook.Row
    attempt: Attempt
    done: int          # how many of this batch's submissions to grade have ended so far
    total: int


class Progress(Protocol):
    """What a batch tells its front end (a progress bar, log lines, nothing)."""

    def started(self, plan: "Plan") -> None: ...

    def finished(self, event: Finished) -> None: ...

    def stopping(self) -> None: ...


class _Silent:
    def started(self, plan: "Plan") -> None:
        pass

    def finished(self, event: Finished) -> None:
        pass

    def stopping(self) -> None:
        pass


@dataclass(frozen=True)
class BatchOutcome:
    """The end of a batch: what it graded and failed to grade, and whether it was stopped."""

    plan: Plan
    graded: tuple[str, ...] = ()     # student ids graded (or regraded) by this batch
    failed: tuple[str, ...] = ()     # student ids whose grading run failed (no result)
    interrupted: bool = False
    rows: tuple[gradebook.Row, ...] = field(default=(), repr=False)   # with the missing
    similarity: Similarity | None = field(default=None, repr=False)
    matched: Matched | None = field(default=None, repr=False)        # with a roster
    lms_books: tuple[lms.LmsGradebook, ...] = field(default=(), repr=False)

    @property
    def exit_code(self) -> int:
        """130 when interrupted, 1 when a grading run failed (run again), else 0."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_FAILED if self.failed else EXIT_OK


def run_batch(submissions: list[Submission], options: BatchOptions, runner: Runner,
              progress: Progress | None = None,
              stop: threading.Event | None = None) -> BatchOutcome:
    """Grade what is not done yet, writing each result as soon as it is done.

    Setting ``stop`` (a signal handler's job) or Ctrl-C (KeyboardInterrupt) stops
    the batch: nothing more starts, the running grading runs are stopped, and
    the gradebook and summary are written for what is done. With
    ``options.similarity``, the submissions' code is compared first (before any
    grading: the summary page lists the most similar pairs from the start). Raises
    ConfigurationChangedError, before grading anything, when DIR holds results graded
    under another configuration or grader version and neither ``regrade`` nor
    ``regrade_changed`` says what to do with them: a class is never mixed silently.

        folder = Path("grades")
        found, _ = find_submissions(Path("class.zip"), folder / ".work")
        outcome = run_batch(found, BatchOptions(out=folder), LocalRunner(jobs=2))
    """
    folder = OutputFolder(options.out)
    stop = stop or threading.Event()
    formats = tuple(lms.lms_format(name) for name in options.lms_formats)   # fail early
    matched = None
    if options.roster is not None:
        matched = match_roster(submissions, options.roster)
        submissions = list(matched.submissions)
    with folder.locked():
        folder.prepare()
        expected = graded_under(options.grading)
        plan = plan_batch(submissions, folder, options.regrade, expected,
                          options.regrade_changed)
        if plan.changed and not options.regrade_changed:
            raise ConfigurationChangedError(changed_message(plan, folder, expected))
        found = None
        if options.similarity is not None and not stop.is_set():
            try:
                found = compare_and_write(folder.root, _sources(submissions),
                                          options.similarity, _names(submissions))
            except KeyboardInterrupt:
                stop.set()
        state = _BatchState(folder, submissions, progress or _Silent(), len(plan.to_grade),
                            found, _Books(options, formats, matched))
        state.write_books()
        state.progress.started(plan)
        try:
            try:
                for submission in plan.to_grade:
                    if stop.is_set():
                        break
                    scratch = folder.pending / f"{submission.student_id}.{uuid.uuid4().hex[:8]}"
                    # The name is only the report's label: the grade never sees it.
                    job = Job(submission, options.grading, scratch, options.timeout,
                              student_name=submission.name)
                    state.futures[_submit(runner, job)] = submission
                state.collect(stop=stop)
            except KeyboardInterrupt:
                stop.set()
            if stop.is_set():
                state.progress.stopping()
                runner.stop()
                try:      # the running ones end within GRACE_SECONDS; keep what completed
                    state.collect(until=time.monotonic() + GRACE_SECONDS + 30, quietly=True)
                except KeyboardInterrupt:    # asked twice: stop waiting
                    pass
        finally:
            runner.close()
            # The results are the truth: build the books from them once more, so that a
            # result written just before an interruption is never missing from them.
            state.rows = {submission.student_id: row_for(submission, folder,
                                                         state.failures.get(submission.student_id),
                                                         INTERRUPTED)
                          for submission in submissions}
            state.write_books()
            shutil.rmtree(folder.pending, ignore_errors=True)
    failed = tuple(sorted(sid for sid in state.failures if sid not in state.graded))
    return BatchOutcome(plan, tuple(state.graded), failed, stop.is_set(),
                        tuple(state.ordered()), found, matched, state.lms_books)


def _sources(submissions: list[Submission]) -> dict[str, Path]:
    """The file of every submission that can be read as source, by student id."""
    return {submission.student_id: submission.path for submission in submissions
            if submission.path is not None and submission.problem is None}


def _names(submissions: list[Submission]) -> dict[str, str]:
    """Each submission's student name (a group's: its names), when the LMS or roster told."""
    return {submission.student_id: submission.name for submission in submissions
            if submission.name}


def _submit(runner: Runner, job: Job) -> concurrent.futures.Future:
    try:
        return runner.submit(job)
    except Exception as problem:   # this submission could not be sent: it fails, not the batch
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_exception(problem)
        return future


@dataclass(frozen=True)
class _Books:
    """What the books hold besides the submissions' rows, and the LMS gradebooks to write."""

    options: BatchOptions
    formats: tuple[lms.LmsFormat, ...] = ()
    matched: Matched | None = None

    def missing_rows(self, rows: list[gradebook.Row]) -> list[gradebook.Row]:
        """A row per roster student who handed in nothing (0 of the class's maximum with
        ``missing_zero``)."""
        if self.matched is None:
            return []
        top = max((row.max_score for row in rows if row.max_score is not None), default=None)
        return [missing_row(entry, self.matched.canvas, self.options.missing_zero, top)
                for entry in self.matched.missing]


class _BatchState:
    """The books of a running batch, and the grading runs it waits for."""

    def __init__(self, folder: OutputFolder, submissions: list[Submission],
                 progress: Progress, total: int,
                 similar: Similarity | None = None, books: _Books | None = None) -> None:
        self.folder = folder
        self.books = books or _Books(BatchOptions(out=folder.root))
        self.lms_books: tuple[lms.LmsGradebook, ...] = ()
        self.similarity = similar
        self.submissions = submissions
        self.progress = progress
        self.total = total
        self.rows = {submission.student_id: row_for(submission, folder)
                     for submission in submissions}
        self.futures: dict[concurrent.futures.Future, Submission] = {}
        self.handled: set[concurrent.futures.Future] = set()
        self.failures: dict[str, str] = {}       # student id -> why its run failed
        self.graded: list[str] = []

    def collect(self, until: float | None = None, quietly: bool = False,
                stop: threading.Event | None = None) -> None:
        """Record each grading run as it ends, until all have ended, ``until`` or ``stop``."""
        while until is None or time.monotonic() < until:
            if stop is not None and stop.is_set():
                return
            pending = {future for future in self.futures
                       if future not in self.handled and not future.cancelled()}
            if not pending:
                return
            # A short timeout, so that Ctrl-C is seen at once on every platform.
            finished, _ = concurrent.futures.wait(
                pending, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                self.handled.add(future)
                self.record(future, quietly)

    def record(self, future: concurrent.futures.Future, quietly: bool) -> None:
        submission = self.futures[future]
        sid = submission.student_id
        try:
            attempt = future.result()
        except concurrent.futures.CancelledError:
            return
        except Exception as problem:      # the runner failed (a lost Dask worker, ...)
            attempt = Attempt(sid, None, None, errors=f"{type(problem).__name__}: {problem}")
        if attempt.stopped and quietly:      # the batch is stopping: not a failure
            return
        data = _parse(attempt.results) if attempt.complete else None
        folder = self.folder
        if data is not None:
            _write_text(folder.result(sid), attempt.results or "")
            _write_text(folder.reports / f"{sid}.txt", attempt.report or _report_of(data))
            (folder.logs / f"{sid}.log").unlink(missing_ok=True)
            self.failures.pop(sid, None)
            self.graded.append(sid)
        else:
            self.failures[sid] = _failure_reason(attempt)
            _write_text(folder.logs / f"{sid}.log", _log_of(attempt, self.failures[sid]))
        self.rows[sid] = row_for(submission, folder, self.failures.get(sid))
        self.write_books()
        if not quietly or data is not None:
            self.progress.finished(Finished(submission, self.rows[sid], attempt,
                                            len(self.handled), self.total))

    def ordered(self) -> list[gradebook.Row]:
        """Every row: the submissions' in their order, then the roster's missing students."""
        rows = [self.rows[submission.student_id] for submission in self.submissions]
        return rows + self.books.missing_rows(rows)

    def write_books(self) -> None:
        ordered = self.ordered()
        gradebook.write_gradebook(self.folder.gradebook, ordered)
        options = self.books.options
        self.lms_books = tuple(lms.lms_gradebook(format, ordered, options.assignment,
                                                 options.choice)
                               for format in self.books.formats)
        for book in self.lms_books:
            lms.write_lms_gradebook(self.folder.root, book)
        summary.write_summary(self.folder.summary, ordered,
                                title=f"Class summary: {self.folder.root.resolve().name}",
                                similarity=self.similarity)


def _parse(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        return None
    return data


def _failure_reason(attempt: Attempt) -> str:
    if attempt.stopped:
        return "the grading run was stopped before the end"
    if attempt.timed_out:
        return f"grading stopped after {attempt.seconds:.0f} s (the batch's --timeout)"
    if attempt.returncode is None:
        return f"grading did not run: {_last_line(attempt.errors)}"
    if attempt.results is None:
        return f"the grader failed (exit {attempt.returncode}): {_last_line(attempt.errors)}"
    return f"the grader wrote unreadable results (exit {attempt.returncode})"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no message"


def _log_of(attempt: Attempt, reason: str) -> str:
    return (f"student id: {attempt.student_id}\nnot graded: {reason}\n"
            f"exit status: {attempt.returncode}\n"
            f"seconds: {attempt.seconds}\ntimed out: {attempt.timed_out}\n"
            f"\n--- stderr\n{attempt.errors}\n--- stdout\n{attempt.report}\n"
            + (f"--- results (not kept)\n{attempt.results}\n" if attempt.results else ""))


def _report_of(data: dict[str, Any]) -> str:
    """A text report rebuilt from results.json (when the run's own stdout is not at hand)."""
    parts = [str(data.get("output", ""))]
    parts += [str(test.get("output", "")) for test in data.get("tests", [])]
    return "\n\n".join(part for part in parts if part) + "\n"

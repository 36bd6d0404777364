"""Grade a whole class: every submission in its own grading process, results kept as they
come, and a batch that was stopped goes on where it stopped.

    outcome = run_batch(submissions, BatchOptions(out=Path("grades")), LocalRunner(jobs=2))

Every submission is graded by its own ``python -m grader grade`` subprocess (its own
sandbox), so a hostile or broken submission costs its own row and never the batch. Each
result is written as soon as it is done, and the gradebook after it, so a batch killed at
any moment (even with SIGKILL) goes on where it stopped when the same command runs again.

Each file is graded as the assignment it is for (``grader.classroom.meant``), and kept by
student and assignment: a student may hand in several. The output folder
(``grader.classroom.state``; the books: ``grader.classroom.books``)::

    DIR/results/ASSIGNMENT/ID.json   Gradescope's results.json of each graded submission
                                     (the truth)
    DIR/reports/ASSIGNMENT/ID.txt    the text report of each graded submission (for the student)
    DIR/logs/ASSIGNMENT/ID.log       what the grader said when it could not grade a submission
    DIR/gradebook.csv      one row per submission (see grader.classroom.gradebook), and
                           per roster student who handed in nothing (grader.classroom.records);
                           a class of several assignments: a line per student, with each
                           assignment's columns, and DIR/gradebook-ASSIGNMENT.csv for each
    DIR/gradebook-canvas.csv, gradebook-moodle.csv   as each LMS imports them (``lms``): a
                           grade column per assignment
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from grader.classroom import gradebook, lms
from grader.classroom.books import Books, assignments_of, gradebook_file, write_books
from grader.classroom.discover import Submission, assign
from grader.classroom.meant import NO_ASSIGNMENT, OTHER_ASSIGNMENT, sentence
from grader.classroom.records import Matched, match_roster, missing_row
from grader.classroom.roster import Roster
from grader.classroom.run import (DEFAULT_TIMEOUT, GRACE_SECONDS, Attempt, GradingOptions, Job,
                                  Runner)
from grader.classroom.similarity import Similarity, SimilarityOptions, compare_and_write
from grader.classroom.state import (INTERRUPTED, ConfigurationChangedError, OutputFolder,
                                    Plan, changed_message, graded_under_each, plan_batch,
                                    row_for)
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
    LMS imports (``lms_formats``: "canvas", "moodle"; each assignment's grade column named
    as ``columns`` says, else ``lms.default_column``; a student in several submissions:
    their ``choice``, latest or best)."""

    out: Path
    grading: GradingOptions = GradingOptions()
    regrade: bool = False
    regrade_changed: bool = False
    timeout: float | None = DEFAULT_TIMEOUT
    similarity: SimilarityOptions | None = None
    roster: Roster | None = None
    missing_zero: bool = False
    lms_formats: tuple[str, ...] = ()
    columns: dict[str, str] = field(default_factory=dict)
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
    graded_as: str = ""              # what it graded as what, in a sentence
    moved: int = 0                   # results of an earlier batch moved to this layout
    interrupted: bool = False
    rows: tuple[gradebook.Row, ...] = field(default=(), repr=False)   # with the missing
    similarity: Similarity | None = field(default=None, repr=False)
    matched: Matched | None = field(default=None, repr=False)        # with a roster
    lms_books: tuple[lms.LmsGradebook, ...] = field(default=(), repr=False)

    @property
    def assignment_books(self) -> list[str]:
        """The file of each assignment's own gradebook (a class of several), beside DIR's."""
        names = assignments_of(self.rows)
        return [gradebook_file(name) for name in names] if len(names) > 1 else []

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
    submissions = assign(submissions, options.grading.assignment)
    said = graded_as(submissions, options.grading.assignment)
    matched = None
    if options.roster is not None:
        matched = match_roster(submissions, options.roster)
        submissions = list(matched.submissions)
    with folder.locked():
        moved = folder.prepare()
        expected = graded_under_each(options.grading, submissions)
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
        books = Books(formats, options.columns, options.choice, found, said)
        state = _BatchState(folder, submissions, progress or _Silent(), len(plan.to_grade),
                            _Books(options, books, matched))
        state.write_books()
        state.progress.started(plan)
        try:
            try:
                for submission in plan.to_grade:
                    if stop.is_set():
                        break
                    assignment, student_id = submission.key
                    scratch = folder.pending / f"{assignment}.{student_id}.{uuid.uuid4().hex[:8]}"
                    # The name is only the report's label: the grade never sees it.
                    job = Job(submission, _options_for(submission, options.grading), scratch,
                              options.timeout, student_name=submission.name)
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
            state.rows = {submission.key: row_for(submission, folder,
                                                  state.failures.get(submission.key),
                                                  INTERRUPTED)
                          for submission in submissions}
            state.write_books()
            shutil.rmtree(folder.pending, ignore_errors=True)
    failed = tuple(sorted(key[1] for key in state.failures if key not in state.graded))
    return BatchOutcome(plan, tuple(key[1] for key in state.graded), failed,
                        graded_as=said, moved=moved, interrupted=stop.is_set(),
                        rows=tuple(state.ordered()), similarity=found, matched=matched,
                        lms_books=state.lms_books)


def graded_as(submissions: list[Submission], given: str | None) -> str:
    """What a batch of ``submissions`` (assigned) grades as what, in one sentence."""
    refused = [kind for submission in submissions for kind in (OTHER_ASSIGNMENT, NO_ASSIGNMENT)
               if (submission.problem or "").startswith(kind)]
    return sentence([submission.assignment for submission in submissions
                     if submission.problem is None], refused, given)


def _options_for(submission: Submission, grading: GradingOptions) -> GradingOptions:
    """The grading options of one submission: told its assignment when its functions alone
    would not tell `grade` (or the instructor named it)."""
    return replace(grading, assignment=submission.assignment if submission.told else None)


def _label(submission: Submission, several: bool) -> str:
    """A submission as the similarity pages name it: its student id (and its assignment, in
    a class of several)."""
    return f"{submission.student_id} ({submission.assignment})" if several \
        else submission.student_id


def _sources(submissions: list[Submission]) -> dict[str, Path]:
    """The file of every submission that can be read as source, by its label."""
    several = len({submission.assignment for submission in submissions}) > 1
    return {_label(submission, several): submission.path for submission in submissions
            if submission.path is not None and submission.problem is None}


def _names(submissions: list[Submission]) -> dict[str, str]:
    """Each submission's student name (a group's: its names), when the LMS or roster told."""
    several = len({submission.assignment for submission in submissions}) > 1
    return {_label(submission, several): submission.name for submission in submissions
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
    """What the books hold besides the submissions' rows, and what else makes them."""

    options: BatchOptions
    books: Books = Books()
    matched: Matched | None = None

    def missing_rows(self, rows: list[gradebook.Row]) -> list[gradebook.Row]:
        """A row per roster student who handed in nothing for an assignment (0 of that
        assignment's maximum with ``missing_zero``)."""
        if self.matched is None:
            return []
        missing = []
        for assignment, entries in self.matched.missing_from:
            top = max((row.max_score for row in rows if row.max_score is not None
                       and row.assignment == assignment), default=None)
            missing += [missing_row(entry, self.matched.canvas, self.options.missing_zero,
                                    top, assignment) for entry in entries]
        return missing


Key = tuple[str, str]      # (assignment, student id): what a batch keeps a submission by


class _BatchState:
    """The books of a running batch, and the grading runs it waits for."""

    def __init__(self, folder: OutputFolder, submissions: list[Submission],
                 progress: Progress, total: int, books: _Books | None = None) -> None:
        self.folder = folder
        self.books = books or _Books(BatchOptions(out=folder.root))
        self.lms_books: tuple[lms.LmsGradebook, ...] = ()
        self.submissions = submissions
        self.progress = progress
        self.total = total
        self.rows = {submission.key: row_for(submission, folder) for submission in submissions}
        self.futures: dict[concurrent.futures.Future, Submission] = {}
        self.handled: set[concurrent.futures.Future] = set()
        self.failures: dict[Key, str] = {}       # why its run failed
        self.graded: list[Key] = []

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
        key = submission.key
        assignment, sid = key
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
            _write_text(folder.result(sid, assignment), attempt.results or "")
            _write_text(folder.report(sid, assignment), attempt.report or _report_of(data))
            folder.log(sid, assignment).unlink(missing_ok=True)
            (folder.logs / f"{sid}.log").unlink(missing_ok=True)      # an earlier batch's
            self.failures.pop(key, None)
            self.graded.append(key)
        else:
            self.failures[key] = _failure_reason(attempt)
            _write_text(folder.log(sid, assignment), _log_of(attempt, self.failures[key]))
        self.rows[key] = row_for(submission, folder, self.failures.get(key))
        self.write_books()
        if not quietly or data is not None:
            self.progress.finished(Finished(submission, self.rows[key], attempt,
                                            len(self.handled), self.total))

    def ordered(self) -> list[gradebook.Row]:
        """Every row: the submissions' in their order, then the roster's missing students."""
        rows = [self.rows[submission.key] for submission in self.submissions]
        return rows + self.books.missing_rows(rows)

    def write_books(self) -> None:
        self.lms_books = write_books(self.folder.root, self.ordered(), self.books.books,
                                     title=f"Class summary: {self.folder.root.resolve().name}")


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

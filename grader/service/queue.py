"""The grading queue of ``grader serve``: threads that take the oldest queued submission and
grade it in a ``python -m grader grade`` process, as ``batch`` does.

The queue is the database (``storage.Store``): a thread that holds a CPU slot of
``batch``'s runner (:class:`grader.classroom.run.LocalRunner`: a sleeping grade lends its
slot to the next) claims a row atomically (it becomes "running"; hand-ins before regrades),
writes the submission's bytes into DATA/work/ID/, grades it through
:func:`grader.classroom.run.run_grade` (or a Dask task, with ``--scheduler``), and stores the
score, results.json and the text report. A run that dies, hangs past its timeout or fails
is run once more, then the submission shows "error" (the instructor may retry it). On start,
rows a killed server left "running" are queued again, so every received submission is graded
to completion exactly once. The web process itself never grades.

    queue = GradingQueue(store, Path("ttt-course"), QueueOptions(jobs=2))
    queue.start(); queue.wake(); ...; queue.stop()
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import keyword
import logging
import re
import shutil
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from grader.classroom import discover, priority
from grader.classroom.run import (DEFAULT_TIMEOUT, Attempt, GradingOptions, Job, LocalRunner,
                                  Slot, run_grade)
from grader.service.course import course_assignments
from grader.service.course.folder import private_folder, write_private
from grader.service.course.storage import Store, Submission
from grader.suite.config import Config
from grader.suite.plugin import PROGRESS_VARIABLE
from provided.source import grader_can_import

log = logging.getLogger("grader.service")

WORK = "work"                  # DATA/work/ID/: a submission's file and its grading run
SUBMISSION_NAME = "mm_player.py"   # the name a hand-in is graded under when its own will not do
OWN_PACKAGES = ("student", "grader", "tests")   # a file of that name would not be the one imported
PROGRESS_NAME = "progress.jsonl"
IDLE_POLL_SECONDS = 1.0        # a thread with nothing to do looks again after this
DEFAULT_GRADE_SECONDS = 20.0   # the estimate of a grading run before any has finished
RECENT_RUNS = 20               # finished grading runs the wait estimate looks at


@dataclass(frozen=True)
class QueueOptions:
    """How submissions are graded: the grade options every run shares, where and how many."""

    grading: GradingOptions = field(default_factory=GradingOptions)
    jobs: int = 1                       # grading runs at once (threads; on Dask: tasks)
    scheduler: str | None = None        # a Dask scheduler's address, or None: this machine
    timeout: float | None = DEFAULT_TIMEOUT
    # grading runs below the web process's priority (TTT_GRADER_NICE in serve's environment
    # may say otherwise: grader.classroom.priority.serving_nice)
    nice: int = field(default_factory=priority.serving_nice)


def priority_clause(options: QueueOptions) -> str:
    """What the start line says of the grading runs' CPU priority (``grader.classroom.
    priority``): the web process keeps its share while every core grades.

    >>> priority_clause(QueueOptions(nice=0))
    'grading at the same CPU priority as the page'
    """
    return priority.describe(options.nice)


def graded_file_name(filename: str) -> str:
    """The name a hand-in is graded under: its name as handed in, made a valid module
    name, so the report's "try a call" lines (``from buggy import mm_move``) import the
    student's own file. A name that would import something else (``random.py``, the
    course's ``poc_ttt_provided.py``) or has nothing to keep is graded as mm_player.py.

    >>> graded_file_name("buggy.py"), graded_file_name("mm_player (1).py")
    ('buggy.py', 'mm_player_1.py')
    >>> graded_file_name("mm_player.py (pasted)"), graded_file_name("My Player.PY")
    ('mm_player.py', 'My_Player.py')
    >>> graded_file_name("random.py"), graded_file_name("2.py"), graded_file_name("class.py")
    ('mm_player.py', 'mm_player.py', 'mm_player.py')
    """
    name = filename.removesuffix(" (pasted)")
    stem = name[:-3] if name.lower().endswith(".py") else name.rpartition(".")[0] or name
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", stem).strip("_")   # ASCII: any file system
    if (not stem.isidentifier() or keyword.iskeyword(stem) or grader_can_import(stem)
            or stem in OWN_PACKAGES):
        return SUBMISSION_NAME
    return f"{stem}.py"


def config_label(options: GradingOptions) -> str:
    """A short name for what a result is graded under: the configuration file's name and a
    fingerprint of its content and of the options that change a score or a report.

    >>> config_label(GradingOptions())
    'default'
    >>> config_label(GradingOptions(visibility="categories")).startswith("default (")
    True
    """
    facts: dict[str, Any] = {"exhaustive": options.exhaustive,
                             "visibility": options.visibility,
                             "leaderboard": options.leaderboard}
    if options.config is not None:
        facts["config"] = hashlib.sha256(Path(options.config).read_bytes()).hexdigest()
    for check in options.checks:
        facts.setdefault("checks", []).append(str(check))
    if facts == {"exhaustive": False, "visibility": "full", "leaderboard": False}:
        return "default"
    name = Path(options.config).name if options.config is not None else "default"
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:8]
    return f"{name} ({digest})"


def estimate_wait(position: int, jobs: int, recent: list[float]) -> float:
    """Seconds until a submission at ``position`` in the queue (1: next) has its report.

    >>> estimate_wait(1, 2, [10.0, 12.0, 30.0])
    12.0
    >>> estimate_wait(3, 2, [10.0])
    20.0
    """
    typical = statistics.median(recent) if recent else DEFAULT_GRADE_SECONDS
    rounds = (max(position, 1) - 1) // max(jobs, 1) + 1
    return round(rounds * typical, 1)


def read_progress(data: Path, submission_id: int,
                  weights: dict[str, float]) -> list[dict[str, Any]]:
    """The rubric items a running grade has finished, from its progress file (in order).

    Each: name, score, max_score, passed, total (the score as the report will count it)."""
    path = Path(data) / WORK / str(submission_id) / PROGRESS_NAME
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    items: dict[str, dict[str, Any]] = {}
    for line in lines:
        try:
            record = json.loads(line)
            name, passed, total = str(record["name"]), int(record["passed"]), int(record["total"])
        except (ValueError, KeyError, TypeError):
            continue          # a line being written
        points = float(weights.get(name, 0.0))
        if not points and not total:
            continue          # an item that is off (0 points, nothing checked)
        score = 0.0 if record.get("error") or not total else round(points * passed / total, 2)
        items[name] = {"name": name, "score": score, "max_score": points,
                       "passed": passed, "total": total}
    return list(items.values())


class GradingQueue:
    """Threads in the server process that grade the queued submissions, oldest first.

    On this machine they grade on the CPU slots of a :class:`grader.classroom.run.LocalRunner`,
    as ``batch`` does: a thread claims a submission only once it holds a slot, and a grade
    whose student's code sleeps lends its slot, so the next submission starts there (at most
    ``jobs`` compute, up to ``2 * jobs`` run). With ``--scheduler``, ``jobs`` threads each
    hand one submission at a time to the Dask cluster.
    """

    def __init__(self, store: Store, data: Path, options: QueueOptions) -> None:
        self.store = store
        self.data = Path(data)
        self.options = options
        self.label = config_label(options.grading)
        self.weights = Config.load(options.grading.config, options.grading.checks,
                                   options.grading.assignment_name).weights
        self._options_lock = threading.Lock()    # options, label and weights change together
        self._wake = threading.Condition()
        self._pending = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._runner: Any = None                 # the Dask runner, with --scheduler
        self._slots: LocalRunner | None = None   # this machine's CPU slots, otherwise
        self.workers: dict[str, str] = {}        # thread name -> what it does now
        # The last runs' seconds, newest first, kept here as they finish: every poll asks
        # for them, and the database can only find them by reading each finished row whole.
        self._recent: collections.deque[float] = collections.deque(
            store.recent_seconds(RECENT_RUNS), maxlen=RECENT_RUNS)
        self._recent_lock = threading.Lock()
        # Called with each student whose result was stored (the LMS's grade passback
        # listens here: grader.service.lti), from the grading thread, after the commit.
        self.graded: list[Callable[[str], None]] = []

    @property
    def jobs(self) -> int:
        return self.options.jobs

    def recent_seconds(self) -> list[float]:
        """How long the last finished grading runs took (at most RECENT_RUNS), newest first:
        ``Store.recent_seconds`` without a query (the server's own runs since it started,
        and before that what the database had).

        >>> queue.recent_seconds()      # doctest: +SKIP
        [2.4, 1.9, 3.1]
        """
        with self._recent_lock:
            return list(self._recent)

    def reconfigure(self, grading: GradingOptions) -> None:
        """Grade what is claimed from now on under ``grading`` (its label and weights too);
        grades under way finish under what they started with. Raises ConfigError, changing
        nothing, when the configuration cannot be read.

            queue.reconfigure(dataclasses.replace(queue.options.grading, config=path))
        """
        weights = Config.load(grading.config, grading.checks, grading.assignment_name).weights
        label = config_label(grading)
        with self._options_lock:
            self.options = dataclasses.replace(self.options, grading=grading)
            self.label = label
            self.weights = weights

    def grading_for(self, assignment: str) -> GradingOptions:
        """What a hand-in for the course's ``assignment`` is graded under: the queue's
        options, as that assignment, with its configuration
        (``course_assignments.config_of``)."""
        with self._options_lock:
            base = self.options.grading
        config = course_assignments.config_of(self.store, assignment, base.config)
        return dataclasses.replace(base, assignment=assignment, config=config)

    def label_for(self, assignment: str) -> str:
        """The label of what a hand-in for ``assignment`` is graded under (``config_label``)."""
        return config_label(self.grading_for(assignment))

    def weights_for(self, assignment: str) -> dict[str, float]:
        """The rubric's points of ``assignment`` as the course grades it."""
        grading = self.grading_for(assignment)
        return Config.load(grading.config, grading.checks, assignment).weights

    def start(self) -> int:
        """Queue again what a stopped server left running, start the threads. How many
        were queued again."""
        recovered = self.store.recover()
        if self.options.scheduler:
            from grader.classroom import distributed
            self._runner = distributed.DaskRunner(self.options.scheduler)
            loop, threads = self._loop_dask, self.jobs
        else:
            self._slots = LocalRunner(self.jobs)
            loop, threads = self._loop_local, 2 * self.jobs   # a second per slot, for a lender
        for index in range(threads):
            name = f"grade_{index}"
            self.workers[name] = "idle"
            thread = threading.Thread(target=loop, args=(name,), name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return recovered

    def wake(self) -> None:
        """A submission arrived: a free thread takes it now rather than at its next look."""
        with self._wake:
            self._pending = True
            self._wake.notify()

    def stop(self, wait: float = 15.0) -> None:
        """Start nothing more; running grades are stopped and queued again for next time."""
        self._stop.set()
        if self._slots is not None:
            self._slots.stop()            # threads waiting for a slot get none
        with self._wake:
            self._wake.notify_all()
        deadline = time.monotonic() + wait
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        if self._slots is not None:
            self._slots.close()
        if self._runner is not None:
            self._runner.stop()
            self._runner.close()

    def _loop_local(self, name: str) -> None:
        assert self._slots is not None
        while not self._stop.is_set():
            with self._slots.slot() as slot:
                if slot is None:          # stopping
                    return
                claimed = self._claim(name)
                if claimed is not None:
                    self._work(name, *claimed, slot=slot)
                    continue
            self._idle()                  # the slot given back first: no row to grade on it

    def _loop_dask(self, name: str) -> None:
        while not self._stop.is_set():
            claimed = self._claim(name)
            if claimed is None:
                self._idle()
            else:
                self._work(name, *claimed, slot=None)

    def _claim(self, name: str) -> tuple[Submission, GradingOptions] | None:
        """The oldest queued submission, now running on ``name``, and what to grade it under
        (its assignment's options: ``grading_for``)."""
        try:
            row = self.store.claim_next(name, None)
        except Exception:                 # the database is busy or gone: look again later
            log.exception("cannot claim a submission")
            return None
        if row is None:
            return None
        try:
            grading = self.grading_for(row.assignment)
            self.store.set_config_label(row.id, config_label(grading))
        except Exception:                 # claimed, not graded: back in the queue
            log.exception("cannot grade submission %s now", row.id)
            self.store.release(row.id)
            return None
        return row, grading

    def _idle(self) -> None:
        """Wait until a submission arrives (wake) or IDLE_POLL_SECONDS pass."""
        with self._wake:
            if not self._pending and not self._stop.is_set():
                self._wake.wait(IDLE_POLL_SECONDS)
            self._pending = False

    def _work(self, name: str, row: Submission, grading: GradingOptions,
              slot: Slot | None) -> None:
        self.workers[name] = f"grading submission {row.id}" + (
            f" on CPU slot {slot.index}" if slot is not None else "")
        try:
            self._grade(row, grading, slot)
        except Exception as problem:      # our own bug: the submission must not stay running
            log.exception("grading submission %s failed", row.id)
            self.store.fail(row.id, f"the grader failed: {problem}")
        finally:
            self.workers[name] = "idle"

    def _grade(self, row: Submission, grading: GradingOptions, slot: Slot | None) -> None:
        folder = private_folder(self.data / WORK / str(row.id))   # 0700, as DATA itself
        path = folder / graded_file_name(row.filename)   # the report names it as handed in
        write_private(path, self.store.submission_bytes(row.id))
        progress = folder / PROGRESS_NAME
        write_private(progress, b"")
        scratch = folder / f"attempt-{row.attempts}"
        shutil.rmtree(scratch, ignore_errors=True)
        log.info("grading submission %s of %s (attempt %s)", row.id, row.student, row.attempts)
        attempt = self._run(path, row.student, grading, scratch, progress, slot)
        if attempt.stopped or self._stop.is_set():
            self.store.release(row.id)
            return
        outcome = self._store_attempt(row, attempt)
        log.info("submission %s: %s (%.1f s)", row.id, outcome, attempt.seconds)
        if outcome != "queued":
            shutil.rmtree(folder, ignore_errors=True)

    def _run(self, path: Path, student: str, grading: GradingOptions, scratch: Path,
             progress: Path, slot: Slot | None) -> Attempt:
        name = self._student_name(student)
        if slot is None:                  # Dask: its own slots, no progress file here
            job = Job(discover.Submission(student, path), grading, scratch,
                      self.options.timeout, student_name=name, nice=self.options.nice)
            return self._runner.submit(job).result()

        def lend() -> None:
            slot.lend()
            self.wake()                   # an idle thread takes the slot now, not at its look

        return run_grade(path, student, grading, scratch, self.options.timeout,
                         self._stop.is_set, slot=slot.index, lend=lend,
                         env={PROGRESS_VARIABLE: str(progress.resolve())},
                         student_name=name, nice=self.options.nice)

    def _student_name(self, student: str) -> str:
        """The student's name on the roster, for the report's header ("" if none)."""
        try:
            found = self.store.student(student)
        except Exception:                 # a name is not worth failing a grade for
            log.exception("cannot read the name of %s", student)
            return ""
        return (found.name or "") if found is not None else ""

    def _store_attempt(self, row: Submission, attempt: Attempt) -> str:
        """Store what a run left: "done", or "queued"/"error" when it failed."""
        results: dict[str, Any] | None = None
        if attempt.results is not None:
            try:
                results = json.loads(attempt.results)
            except ValueError:
                results = None
        if attempt.complete and attempt.returncode == 0 and results is not None:
            tests = results.get("tests", [])
            self.store.finish(row.id, score=float(results.get("score", 0.0)),
                              max_score=float(sum(t.get("max_score", 0.0) for t in tests)),
                              results_json=attempt.results, report_text=attempt.report,
                              seconds=attempt.seconds)
            with self._recent_lock:
                self._recent.appendleft(attempt.seconds)
            for listener in self.graded:
                try:
                    listener(row.student)
                except Exception:     # a listener's failure must not undo a stored grade
                    log.exception("after grading submission %s", row.id)
            return "done"
        if attempt.timed_out:
            why = f"the grading run took longer than {self.options.timeout:g} s and was stopped"
        elif attempt.returncode is None:
            why = attempt.errors or "the grading run could not start"
        elif results is not None and attempt.returncode == 1:
            why = "the grader itself failed: " + str(
                results.get("extra_data", {}).get("grader_error") or "see the report")
        else:
            why = f"the grading run ended with exit status {attempt.returncode}"
        log.warning("submission %s, attempt %s: %s\n%s", row.id, row.attempts, why,
                    attempt.errors[-2000:])
        return self.store.fail(row.id, why, report_text=attempt.report or None,
                               results_json=attempt.results)

"""Grading one submission in its own ``python -m grader grade`` process, and the runners
that do it for a batch (here; ``grader.classroom.distributed`` on a Dask cluster). The
process is forked from this thread's warm server (``grader.classroom.warm``: the same
process, without starting Python and importing the grader again), or, with
``TTT_GRADER_COLD=1`` or where that cannot be, started fresh.

>>> GradingOptions(exhaustive=True, visibility="categories").argv()
['--exhaustive', '--visibility', 'categories']
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol

import grader
from grader.classroom.discover import Submission
from grader.classroom.orphans import die_with
from grader.classroom.priority import lower_child, priority_environment
from grader.classroom.warm import ServerLost, WarmProcess, WarmUnavailable, give_back
from grader.classroom.warm import take as take_warm_server
from grader.sandbox.cpu import CPU_VARIABLE, LEND_VARIABLE

GRADER_HOME = Path(grader.__file__).resolve().parent.parent  # where `python -m grader` runs
MAX_OUTPUT_BYTES = 1024 * 1024            # what we keep of a grading run's stdout and stderr
DEFAULT_TIMEOUT = 1800.0                  # wall seconds one grading run may take
GRACE_SECONDS = 10.0                      # after SIGTERM, before SIGKILL


@dataclass(frozen=True)
class GradingOptions:
    """The options of ``python -m grader grade`` that every submission of a batch shares.

    >>> GradingOptions(exhaustive=True, visibility="categories").argv()
    ['--exhaustive', '--visibility', 'categories']
    """

    exhaustive: bool = False
    visibility: str = "full"
    config: Path | None = None
    checks: tuple[Path, ...] = ()
    leaderboard: bool = False
    assignment: str | None = None     # None: each file's own (recognised by its functions)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "GradingOptions":
        """The options of a parsed command line (see ``cli.add_grading_options``)."""
        config = getattr(args, "config", None)
        return cls(exhaustive=bool(getattr(args, "exhaustive", False)),
                   visibility=getattr(args, "visibility", "full") or "full",
                   leaderboard=bool(getattr(args, "leaderboard", False)),
                   config=Path(config).resolve() if config else None,
                   checks=tuple(Path(check).resolve() for check in getattr(args, "checks", ())),
                   assignment=getattr(args, "assignment", None) or None)

    def argv(self) -> list[str]:
        """These options as arguments of ``python -m grader grade``."""
        argv: list[str] = []
        if self.exhaustive:
            argv.append("--exhaustive")
        if self.visibility != "full":
            argv += ["--visibility", self.visibility]
        if self.config is not None:
            argv += ["--config", str(self.config)]
        if self.leaderboard:
            argv.append("--leaderboard")
        if self.checks:
            argv += ["--checks", *map(str, self.checks)]
        if self.assignment:
            argv += ["--assignment", self.assignment]
        return argv

    @property
    def assignment_name(self) -> str:
        """The assignment whose configuration these options load."""
        return self.assignment or "minimax"


def grade_argv(submission: Path, json_path: Path, student_id: str,
               options: GradingOptions, student_name: str = "",
               helpers: bool = False) -> list[str]:
    """The command that grades one submission (run it with ``cwd=GRADER_HOME``).
    ``student_name``, when given, goes to the report's header (never to the score);
    ``helpers``: the file is in the student's own folder, graded with the modules beside it
    that it imports (``grade --with-helpers``).

    >>> grade_argv(Path("/s/a.py"), Path("/o/a.json"), "a", GradingOptions())[1:]
    ['-m', 'grader', 'grade', '/s/a.py', '--json', '/o/a.json', '--student-id=a']
    >>> grade_argv(Path("/s/a.py"), Path("/o/a.json"), "a", GradingOptions(), "Ada L")[-1]
    '--student-name=Ada L'
    """
    # One argument each ("--x=VALUE"): an id or a name starting with "-" stays a value.
    return [sys.executable, "-m", "grader", "grade", str(submission), "--json", str(json_path),
            f"--student-id={student_id}", *options.argv(),
            *([f"--student-name={student_name}"] if student_name else []),
            *(["--with-helpers"] if helpers else [])]


@dataclass(frozen=True)
class Attempt:
    """What one ``python -m grader grade`` run left behind."""

    student_id: str
    returncode: int | None        # None: it never started
    results: str | None           # the results.json it wrote, as text
    report: str = ""              # its stdout: the text report
    errors: str = ""              # its stderr
    seconds: float = 0.0          # wall time
    timed_out: bool = False       # stopped because it ran over the timeout
    stopped: bool = False         # stopped because the batch was interrupted
    warm: bool = False            # forked by a warm server (grader.classroom.warm)

    @property
    def complete(self) -> bool:
        """It finished by itself and wrote its results (a grader error is a result too)."""
        return not (self.timed_out or self.stopped) and self.results is not None \
            and self.returncode in (0, 1)


def run_grade(submission: Path, student_id: str, options: GradingOptions, scratch: Path,
              timeout: float | None = DEFAULT_TIMEOUT,
              should_stop: Callable[[], bool] = lambda: False,
              grace: float = GRACE_SECONDS, slot: int | None = None,
              env: dict[str, str] | None = None,
              lend: Callable[[], None] | None = None, student_name: str = "",
              nice: int = 0, helpers: bool = False) -> Attempt:
    """Grade one submission in a ``python -m grader grade`` subprocess; never raises for it.

    The subprocess writes into ``scratch`` (a folder of its own); on a timeout
    or when ``should_stop()`` turns true it gets SIGTERM (it then closes its
    sandbox and writes what it has), and SIGKILL ``grace`` seconds later. ``slot``: which
    of the runs going on at once this is, so each runs on a CPU of its own
    (``grader.sandbox.cpu``). ``env``: more environment variables for the run (``grader
    serve`` names a progress file with ``TTT_GRADER_PROGRESS``). ``lend``, if given, is
    called (once) when the run says its CPU is free: its student's code waits instead of
    computing (``grader.sandbox.cpu.lend``). ``student_name``: shown in the report's header
    beside the id. ``nice``: a lower CPU priority for the run and all it starts
    (``grader.classroom.priority``: ``grader serve`` grades beside its web process).
    ``helpers``: grade it with the modules beside it that it imports (a student's own
    folder: ``Submission.own_folder``).
    ``Attempt.warm`` says whether the warm server forked it (see the module's docstring).
    """
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    json_path = scratch / "results.json"
    lent_file = scratch / "cpu-lent"
    lent_file.unlink(missing_ok=True)   # an earlier attempt's
    argv = grade_argv(Path(submission).resolve(), json_path.resolve(), student_id, options,
                      student_name, helpers)
    started = time.monotonic()
    timed_out = stopped = warm = False
    with open(scratch / "stdout", "wb") as stdout, open(scratch / "stderr", "wb") as stderr:
        extra = {**(env or {}), **priority_environment(nice),
                 **({} if slot is None else {CPU_VARIABLE: str(slot)}),
                 **({} if lend is None else {LEND_VARIABLE: str(lent_file.resolve())})}
        environ = {**os.environ, **extra}
        process: subprocess.Popen | WarmProcess
        try:
            process = _start_warm(argv, environ, stdout.fileno(), stderr.fileno())
            warm = True
        except WarmUnavailable:   # not sure to be the same grade warm: a fresh process
            try:
                process = subprocess.Popen(argv, cwd=GRADER_HOME, stdin=subprocess.DEVNULL,
                                           stdout=stdout, stderr=stderr, start_new_session=True,
                                           env=environ if extra else None,
                                           preexec_fn=functools.partial(
                                               _start_cold, os.getpid(), nice))
            except OSError as problem:
                return Attempt(student_id, None, None,
                               errors=f"cannot start the grader: {problem}")
        try:
            while True:
                try:
                    process.wait(timeout=0.25)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if lend is not None and lent_file.exists():
                    lend()
                    lend = None
                timed_out = timeout is not None and time.monotonic() - started > timeout
                stopped = not timed_out and should_stop()
                if timed_out or stopped:
                    _terminate(process, grace)
                    break
        except ServerLost as lost:   # someone ended the warm server: the grade ended with it
            return Attempt(student_id, None, None, report=_read_capped(scratch / "stdout"),
                           errors=f"{_read_capped(scratch / 'stderr')}\nthe warm grading "
                                  f"server ended during this grade ({lost}); grade it again",
                           seconds=round(time.monotonic() - started, 3), warm=True)
        except BaseException:
            _terminate(process, 0)
            raise
        finally:
            if warm:
                give_back(process.server)    # type: ignore[union-attr]
    try:
        results: str | None = json_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        results = None
    return Attempt(student_id, process.returncode, results,
                   report=_read_capped(scratch / "stdout"),
                   errors=_read_capped(scratch / "stderr"),
                   seconds=round(time.monotonic() - started, 3),
                   timed_out=timed_out, stopped=stopped, warm=warm)


def _start_warm(argv: list[str], environ: dict[str, str], stdout: int,
                stderr: int) -> WarmProcess:
    """The grade ``argv`` forked by this thread's warm server (``grader.classroom.warm``);
    raises WarmUnavailable where it must run cold (``TTT_GRADER_COLD=1``, no fork, no
    server), before anything has started."""
    if argv[:3] != [sys.executable, "-m", "grader"]:
        raise WarmUnavailable("not a `python -m grader` command")
    server = take_warm_server(environ)
    try:
        return server.start(argv[3:], environ, stdout, stderr)
    except WarmUnavailable:
        give_back(server)        # it closed itself: give_back ends it for good
        raise


def _start_cold(parent: int, nice: int) -> None:
    """In a cold grade's child, before it runs Python: it ends with ``parent`` and runs at
    ``nice`` (as a warm server's grades do)."""
    die_with(parent)
    lower_child(nice)


def _terminate(process: subprocess.Popen | WarmProcess, grace: float) -> None:
    """SIGTERM, then after ``grace`` seconds SIGKILL to the whole process group."""
    with contextlib.suppress(ProcessLookupError):
        if grace > 0:
            process.terminate()
            try:
                process.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                pass
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _read_capped(path: Path) -> str:
    with open(path, "rb") as file:
        data = file.read(MAX_OUTPUT_BYTES + 1)
    text = data[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace")
    return text + ("\n[... cut]\n" if len(data) > MAX_OUTPUT_BYTES else "")


@dataclass(frozen=True)
class Job:
    """One submission to grade, with what every grading run of the batch shares."""

    submission: Submission
    options: GradingOptions
    scratch: Path                        # a folder for this attempt only
    timeout: float | None = DEFAULT_TIMEOUT
    student_name: str = ""               # for the report's header ("": the id alone)
    nice: int = 0                        # a lower CPU priority (grader.classroom.priority)


class Slot:
    """The CPU slot a grade runs on (``index``: run_grade's ``slot``). ``lend()``, called
    when the grade's student code waits instead of computing, gives the slot to the next
    grade while this one goes on there (once; later calls do nothing)."""

    def __init__(self, index: int, give: Callable[[int], None]) -> None:
        self.index = index
        self.lent = False
        self._give = give

    def lend(self) -> None:
        if not self.lent:
            self.lent = True
            self._give(self.index)


class _SlotWait:
    """A grade waiting for a slot: ``slot`` is set (None: stopping), then ``given``."""

    def __init__(self) -> None:
        self.slot: int | None = None
        self.given = threading.Event()


class Runner(Protocol):
    """Where the grading runs happen: this machine (LocalRunner) or a Dask cluster."""

    def submit(self, job: Job) -> concurrent.futures.Future:
        """Start grading ``job`` (now or when a slot is free); the future gives an Attempt."""

    def stop(self) -> None:
        """Start nothing more; stop the running ones (they end with ``stopped=True``)."""

    def close(self) -> None:
        """Release everything (threads, connections)."""


class LocalRunner:
    """Runs ``jobs`` grading subprocesses at a time on this machine, each on a slot (a CPU)
    of its own, in the order they were submitted.

    A grade whose student's code sleeps instead of computing lends its slot
    (``grader.sandbox.cpu.lend``): the next grade starts on that CPU while the sleeper
    finishes there, so its seconds of waiting do not hold a CPU idle. A grade takes the free
    slot with the fewest grades on it (a slot freed outright before a lent one); at most
    ``2 * jobs`` run at once.

    >>> runner = LocalRunner(jobs=2); runner.close()
    """

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool = concurrent.futures.ThreadPoolExecutor(2 * self.jobs,
                                                           thread_name_prefix="grade")
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._free = list(range(self.jobs))      # slots no computing grade holds
        self._on_slot = [0] * self.jobs          # grades running on each slot, lenders too
        self._waiting: collections.deque[_SlotWait] = collections.deque()   # first come first

    def submit(self, job: Job) -> concurrent.futures.Future:
        return self._pool.submit(self._run, job)

    @contextlib.contextmanager
    def slot(self) -> Iterator[Slot | None]:
        """A slot (a CPU) for one grade, once every grade that asked before has one; None
        when the runner is stopping. Leaving gives it back, unless the grade lent it.
        ``grader serve``'s queue grades on these slots too, claiming a submission only once
        it has one.

        >>> runner = LocalRunner(jobs=1)
        >>> with runner.slot() as slot:
        ...     slot.index        # run_grade(..., slot=slot.index, lend=slot.lend)
        0
        >>> runner.close()
        """
        index = self._take_slot()
        if index is None:
            yield None
            return
        slot = Slot(index, self._give_slot)
        try:
            yield slot
        finally:
            with self._lock:
                self._on_slot[index] -= 1
            if not slot.lent:
                self._give_slot(index)

    def _run(self, job: Job) -> Attempt:
        submission = job.submission
        with self.slot() as slot:
            if slot is None:
                return Attempt(submission.student_id, None, None, stopped=True)
            assert submission.path is not None
            return run_grade(submission.path, submission.student_id, job.options,
                             job.scratch, job.timeout, self._stop.is_set, slot=slot.index,
                             lend=slot.lend, student_name=job.student_name, nice=job.nice,
                             helpers=submission.own_folder)

    def _take_slot(self) -> int | None:
        """A free slot, once every grade that asked before has one; None when stopping."""
        with self._lock:
            if self._stop.is_set():
                return None
            if self._free and not self._waiting:
                return self._pick()
            wait = _SlotWait()
            self._waiting.append(wait)
        wait.given.wait()
        return None if self._stop.is_set() else wait.slot

    def _give_slot(self, slot: int) -> None:
        with self._lock:
            self._free.append(slot)
            while self._free and self._waiting and not self._stop.is_set():
                wait = self._waiting.popleft()
                wait.slot = self._pick()
                wait.given.set()

    def _pick(self) -> int:
        """The free slot with the fewest grades on it (the lock held)."""
        slot = min(self._free, key=lambda free: (self._on_slot[free], free))
        self._free.remove(slot)
        self._on_slot[slot] += 1
        return slot

    def stop(self) -> None:
        with self._lock:
            self._stop.set()
            while self._waiting:   # every grade waiting for a slot: none starts
                self._waiting.popleft().given.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

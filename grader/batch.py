"""Grade a whole class: find the submissions, grade each in its own process, resume.

    python -m grader batch downloads.zip --out grades --jobs 2

Every submission is graded by its own ``python -m grader grade`` subprocess (its
own sandbox, its own seed from its student id), so a hostile or broken
submission costs its own row and never the batch. Each result is written as
soon as it is done, and the gradebook after it, so a batch killed at any moment
(even with SIGKILL) goes on where it stopped when the same command runs again.

The output folder ``DIR``::

    DIR/results/ID.json    Gradescope's results.json of each graded submission (the truth)
    DIR/reports/ID.txt     the text report of each graded submission (for the student)
    DIR/logs/ID.log        what the grader said when it could not grade a submission
    DIR/gradebook.csv      one row per submission (see grader.gradebook)
    DIR/summary.html       the class summary page (see grader.gradebook)
    DIR/.work/             scratch space: the unzipped submissions, grading in progress

A submission is done when ``DIR/results/ID.json`` exists and parses; nothing
else is ever written there, so a half-finished or interrupted grading run is
never taken for a result.

Student ids and which file of a folder is graded: ``HELP_EPILOG`` below (the
same text as ``python -m grader batch --help``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import uuid
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator, Protocol

import grader
from grader import gradebook, report

GRADER_HOME = Path(grader.__file__).resolve().parent.parent  # where `python -m grader` runs
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

MAX_SOURCE_BYTES = 5 * 1024 * 1024        # a .py file larger than this is not graded
MAX_ZIP_MEMBER_BYTES = 50 * 1024 * 1024   # one file in the class zip
MAX_ZIP_TOTAL_BYTES = 2 * 1024 ** 3       # everything in the class zip, unpacked
MAX_ZIP_MEMBERS = 100_000
MAX_OUTPUT_BYTES = 1024 * 1024            # what we keep of a grading run's stdout and stderr
DEFAULT_TIMEOUT = 1800.0                  # wall seconds one grading run may take
GRACE_SECONDS = 10.0                      # after SIGTERM, before SIGKILL
_write_text = report.write_text_atomic

IGNORED_NAMES = {"__MACOSX", "__pycache__", "submission_metadata.yml", "Thumbs.db",
                 "desktop.ini"}
SUBMISSION_FILE = "mm_player.py"

_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[A-Za-z]+(?:_(?P<rest>.*))?$")
_CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<att>\d+)_(?P<rest>.+)$")
_GRADESCOPE = re.compile(r"^submission_(?P<id>\d+)$")
_CANVAS_COPY = re.compile(r"-\d+(?=\.py$)")   # Canvas renames a resubmitted mm_player.py
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._@+-]+")


class SubmissionsError(Exception):
    """SUBMISSIONS cannot be read as a class: missing, not a folder or a zip, a bad zip."""


class ArchiveError(SubmissionsError):
    """The class zip is unsafe or too large to unpack."""


class BatchLockedError(Exception):
    """Another batch is writing to the same output folder."""


# ---------------------------------------------------------------- finding submissions


@dataclass(frozen=True)
class Submission:
    """One student's submission, or why it cannot be graded.

    >>> Submission("alice", Path("alice.py")).problem is None
    True
    """

    student_id: str
    path: Path | None             # the .py file to grade; None when it is not graded
    problem: str | None = None    # why it is not graded ("empty folder", ...)
    source: str = ""              # where it was found, relative to SUBMISSIONS
    name: str = ""                # the student's name, when the LMS's file name tells it
    late: bool = False            # Canvas marked it LATE


@dataclass(frozen=True)
class _Identity:
    student_id: str
    name: str = ""
    late: bool = False
    grouped: bool = False      # one of several files of a student (Canvas, flat Moodle)
    file_name: str = ""        # the file's own name, without the LMS's prefix


def student_id_of(entry_name: str, is_dir: bool) -> tuple[str, str, bool]:
    """The student id, name and lateness an LMS download gives a file or folder name.

    >>> student_id_of("lastfirst_LATE_12345_67890_mm_player.py", is_dir=False)
    ('12345', 'lastfirst', True)
    >>> student_id_of("Ada Lovelace_4321_assignsubmission_file_", is_dir=True)
    ('4321', 'Ada Lovelace', False)
    >>> student_id_of("submission_98765", is_dir=True)
    ('98765', '', False)
    >>> student_id_of("bob smith.py", is_dir=False)
    ('bob_smith', '', False)
    """
    identity = _identify(entry_name, is_dir)
    return identity.student_id, identity.name, identity.late


def _identify(entry_name: str, is_dir: bool) -> _Identity:
    moodle = _MOODLE.match(entry_name)
    if moodle:
        rest = moodle["rest"] or ""
        return _Identity(moodle["id"], moodle["name"], grouped=not is_dir and bool(rest),
                         file_name=rest)
    if is_dir:
        gradescope = _GRADESCOPE.match(entry_name)
        if gradescope:
            return _Identity(gradescope["id"])
        return _Identity(_clean_id(entry_name))
    canvas = _CANVAS.match(entry_name)
    if canvas:
        return _Identity(canvas["id"], canvas["name"], bool(canvas["late"]), grouped=True,
                         file_name=canvas["rest"])
    stem = entry_name[:-3] if entry_name.endswith(".py") else Path(entry_name).stem
    return _Identity(_clean_id(stem), file_name=entry_name)


def _clean_id(text: str) -> str:
    return _UNSAFE_ID_CHARS.sub("_", text.strip()).strip("._-")[:100]


def _ignored(path: Path) -> bool:
    return path.name.startswith(".") or path.name in IGNORED_NAMES


def find_submissions(source: Path, work: Path) -> tuple[list[Submission], list[str]]:
    """Every submission in ``source`` (a folder, or a zip unpacked into ``work``), by id.

    Returns the submissions sorted by student id, and warnings about the zip
    (entries skipped as unsafe). Problems of single submissions (an empty
    folder, two submissions with one id, a binary file, ...) are not errors:
    they come back as submissions with a ``problem``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "alice.py").write_text("def mm_move(board, player): pass\\n")
    >>> (folder / "bob").mkdir()
    >>> found, warnings = find_submissions(folder, folder / ".work")
    >>> [(s.student_id, s.problem) for s in found]
    [('alice', None), ('bob', 'empty folder')]
    """
    source = Path(source)
    warnings: list[str] = []
    if not source.exists():
        raise SubmissionsError(f"{source}: no such file or folder")
    if source.is_dir():
        root = source
    elif zipfile.is_zipfile(source):
        root = Path(work) / "unzipped"
        warnings = extract_zip(source, root)
        root = _unwrap(root)
    else:
        raise SubmissionsError(f"{source}: neither a folder nor a .zip file")
    return _collect(root), warnings


def _unwrap(root: Path) -> Path:
    """A zip of one folder (no LMS name): that folder holds the class."""
    while True:
        entries = [entry for entry in root.iterdir() if not _ignored(entry)]
        if len(entries) != 1 or not entries[0].is_dir():
            return root
        name = entries[0].name
        if _MOODLE.match(name) or _GRADESCOPE.match(name):
            return root
        root = entries[0]


def _collect(root: Path) -> list[Submission]:
    groups: dict[str, list[tuple[Path, _Identity]]] = {}
    for entry in sorted(root.iterdir()):
        if _ignored(entry):
            continue
        identity = _identify(entry.name, entry.is_dir())
        if not identity.student_id:     # a name made only of symbols: a stable made-up id
            digest = hashlib.sha1(entry.name.encode("utf-8", "surrogateescape")).hexdigest()
            identity = replace(identity, student_id=f"unnamed-{digest[:8]}")
        groups.setdefault(identity.student_id.casefold(), []).append((entry, identity))
    submissions = [_submission(root, entries) for entries in groups.values()]
    return sorted(submissions, key=lambda submission: submission.student_id)


def _submission(root: Path, entries: list[tuple[Path, _Identity]]) -> Submission:
    identity = entries[0][1]
    base: dict[str, Any] = dict(student_id=identity.student_id, name=identity.name,
                                late=any(other.late for _, other in entries))
    sources = ", ".join(_relative(entry, root) for entry, _ in entries)
    if len(entries) > 1 and not all(other.grouped for _, other in entries):
        return Submission(**base, path=None, source=sources,
                          problem=f"duplicate student id: {sources} "
                                  "(rename all but one and run again)")
    if entries[0][0].is_dir():
        return _from_folder(root, entries[0][0], base)
    candidates = [(entry, other.file_name or entry.name) for entry, other in entries
                  if entry.name.endswith(".py")]
    if not candidates:
        return Submission(**base, path=None, source=sources,
                          problem=f"not a .py file: {sources}")
    return _choose(root, candidates, base, sources)


def submission_in_folder(folder: Path, student_id: str) -> Submission:
    """The submission in one student's folder: its only .py file, else its mm_player.py.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> submission_in_folder(folder, "alice").problem
    'empty folder'
    """
    return _from_folder(Path(folder).parent, Path(folder), dict(student_id=student_id))


def _from_folder(root: Path, folder: Path, base: dict[str, Any]) -> Submission:
    relative = _relative(folder, root)
    files = list(_files_in(folder))
    if not files:
        return Submission(**base, path=None, source=relative, problem="empty folder")
    candidates = [(path, path.name) for path in files if path.name.endswith(".py")]
    if not candidates:
        found = ", ".join(sorted(path.name for path in files)[:5])
        return Submission(**base, path=None, source=relative,
                          problem=f"no .py file in the folder (found: {found})")
    return _choose(root, candidates, base, relative)


def _files_in(folder: Path) -> Iterator[Path]:
    for top, folders, files in os.walk(folder):     # does not follow links to folders
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name not in IGNORED_NAMES)
        for name in sorted(files):
            if not name.startswith(".") and name not in IGNORED_NAMES:
                yield Path(top) / name


def _choose(root: Path, candidates: list[tuple[Path, str]], base: dict[str, Any],
            sources: str) -> Submission:
    if len(candidates) > 1:
        named = [path for path, name in candidates
                 if _CANVAS_COPY.sub("", name) == SUBMISSION_FILE]
        if len(named) != 1:
            names = ", ".join(_relative(path, root) for path, _ in candidates[:5])
            return Submission(**base, path=None, source=sources,
                              problem=f"several .py files and not exactly one "
                                      f"named {SUBMISSION_FILE}: {names}")
        candidates = [(named[0], SUBMISSION_FILE)]
    path = candidates[0][0]
    return Submission(**base, path=path, source=_relative(path, root),
                      problem=_unreadable(path))


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be graded as Python source, or None."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return f"file larger than {MAX_SOURCE_BYTES // 1024 // 1024} MB"
        data = path.read_bytes()
    except OSError as problem:
        return f"cannot read the file: {problem.strerror or problem}"
    if b"\x00" in data:
        return "binary file, not Python source"
    return None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def extract_zip(archive: Path, destination: Path) -> list[str]:
    """Unpack ``archive`` into ``destination`` (emptied first), safely; return warnings.

    Entries with absolute paths, ``..`` or links are skipped with a warning,
    files over MAX_ZIP_MEMBER_BYTES too; more than MAX_ZIP_TOTAL_BYTES unpacked
    or MAX_ZIP_MEMBERS entries in all raise :class:`ArchiveError`. Sizes are
    counted as the bytes come out, not as the zip claims.
    """
    destination = Path(destination)
    if destination.exists():
        shutil.rmtree(destination)
    destination.mkdir(parents=True)
    warnings: list[str] = []
    total = 0
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise ArchiveError(f"{archive}: more than {MAX_ZIP_MEMBERS} entries")
            for member in members:
                target = _safe_target(destination, member)
                if isinstance(target, str):
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: {target}")
                    continue
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    written = _copy_capped(bundle, member, target,
                                           min(MAX_ZIP_MEMBER_BYTES, MAX_ZIP_TOTAL_BYTES - total))
                except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError,
                        zlib.error) as problem:    # encrypted, corrupt, unknown compression
                    target.unlink(missing_ok=True)
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: {problem}")
                    continue
                if written is None:
                    if total + MAX_ZIP_MEMBER_BYTES > MAX_ZIP_TOTAL_BYTES:
                        raise ArchiveError(f"{archive}: more than {MAX_ZIP_TOTAL_BYTES} bytes "
                                           "unpacked")
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: larger "
                                    f"than {MAX_ZIP_MEMBER_BYTES} bytes")
                    continue
                total += written
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
            OSError, EOFError) as problem:
        raise SubmissionsError(f"{archive}: cannot unpack: {problem}") from None
    return warnings


def _safe_target(destination: Path, member: zipfile.ZipInfo) -> Path | str:
    name = member.filename.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if any(part == ".." for part in parts):
        return "a path that leaves the folder"
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a link"
    parts = tuple(part for part in parts if part not in ("", "."))
    if not parts:
        return "an empty name"
    return destination.joinpath(*parts)


def _copy_capped(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path,
                 cap: int) -> int | None:
    written = 0
    with bundle.open(member) as reader, open(target, "wb") as writer:
        while chunk := reader.read(1024 * 1024):
            written += len(chunk)
            if written > cap:
                break
            writer.write(chunk)
    if written > cap:
        target.unlink()
        return None
    return written


# ---------------------------------------------------------------- grading one submission


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

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "GradingOptions":
        """The options of a parsed command line (see ``cli.add_grading_options``)."""
        config = getattr(args, "config", None)
        return cls(exhaustive=bool(getattr(args, "exhaustive", False)),
                   visibility=getattr(args, "visibility", "full") or "full",
                   config=Path(config).resolve() if config else None,
                   checks=tuple(Path(check).resolve() for check in getattr(args, "checks", ())))

    def argv(self) -> list[str]:
        """These options as arguments of ``python -m grader grade``."""
        argv: list[str] = []
        if self.exhaustive:
            argv.append("--exhaustive")
        if self.visibility != "full":
            argv += ["--visibility", self.visibility]
        if self.config is not None:
            argv += ["--config", str(self.config)]
        if self.checks:
            argv += ["--checks", *map(str, self.checks)]
        return argv


def grade_argv(submission: Path, json_path: Path, student_id: str,
               options: GradingOptions) -> list[str]:
    """The command that grades one submission (run it with ``cwd=GRADER_HOME``).

    >>> grade_argv(Path("/s/a.py"), Path("/o/a.json"), "a", GradingOptions())[1:]
    ['-m', 'grader', 'grade', '/s/a.py', '--json', '/o/a.json', '--student-id=a']
    """
    return [sys.executable, "-m", "grader", "grade", str(submission), "--json", str(json_path),
            f"--student-id={student_id}", *options.argv()]


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

    @property
    def complete(self) -> bool:
        """It finished by itself and wrote its results (a grader error is a result too)."""
        return not (self.timed_out or self.stopped) and self.results is not None \
            and self.returncode in (0, 1)


def run_grade(submission: Path, student_id: str, options: GradingOptions, scratch: Path,
              timeout: float | None = DEFAULT_TIMEOUT,
              should_stop: Callable[[], bool] = lambda: False,
              grace: float = GRACE_SECONDS) -> Attempt:
    """Grade one submission in a ``python -m grader grade`` subprocess; never raises for it.

    The subprocess writes into ``scratch`` (a folder of its own); on a timeout
    or when ``should_stop()`` turns true it gets SIGTERM (it then closes its
    sandbox and writes what it has), and SIGKILL ``grace`` seconds later.
    """
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    json_path = scratch / "results.json"
    argv = grade_argv(Path(submission).resolve(), json_path.resolve(), student_id, options)
    started = time.monotonic()
    timed_out = stopped = False
    with open(scratch / "stdout", "wb") as stdout, open(scratch / "stderr", "wb") as stderr:
        try:
            process = subprocess.Popen(argv, cwd=GRADER_HOME, stdin=subprocess.DEVNULL,
                                       stdout=stdout, stderr=stderr, start_new_session=True,
                                       preexec_fn=functools.partial(_die_with_parent,
                                                                    os.getpid()))
        except OSError as problem:
            return Attempt(student_id, None, None, errors=f"cannot start the grader: {problem}")
        try:
            while True:
                try:
                    process.wait(timeout=0.25)
                    break
                except subprocess.TimeoutExpired:
                    pass
                timed_out = timeout is not None and time.monotonic() - started > timeout
                stopped = not timed_out and should_stop()
                if timed_out or stopped:
                    _terminate(process, grace)
                    break
        except BaseException:
            _terminate(process, 0)
            raise
    try:
        results: str | None = json_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        results = None
    return Attempt(student_id, process.returncode, results,
                   report=_read_capped(scratch / "stdout"),
                   errors=_read_capped(scratch / "stderr"),
                   seconds=round(time.monotonic() - started, 3),
                   timed_out=timed_out, stopped=stopped)


def _terminate(process: subprocess.Popen, grace: float) -> None:
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


def _die_with_parent(parent: int) -> None:  # pragma: no cover - in the child, before exec
    # Linux: if the batch dies (even SIGKILL), its grading runs get SIGTERM instead of
    # going on as orphans.
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)    # PR_SET_PDEATHSIG
        if os.getppid() != parent:   # it died before the line above
            os._exit(1)


def _load_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


# ---------------------------------------------------------------- runners


@dataclass(frozen=True)
class Job:
    """One submission to grade, with what every grading run of the batch shares."""

    submission: Submission
    options: GradingOptions
    scratch: Path                        # a folder for this attempt only
    timeout: float | None = DEFAULT_TIMEOUT


class Runner(Protocol):
    """Where the grading runs happen: this machine (LocalRunner) or a Dask cluster."""

    def submit(self, job: Job) -> concurrent.futures.Future:
        """Start grading ``job`` (now or when a slot is free); the future gives an Attempt."""

    def stop(self) -> None:
        """Start nothing more; stop the running ones (they end with ``stopped=True``)."""

    def close(self) -> None:
        """Release everything (threads, connections)."""


class LocalRunner:
    """Runs ``jobs`` grading subprocesses at a time on this machine.

    >>> runner = LocalRunner(jobs=2); runner.close()
    """

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool = concurrent.futures.ThreadPoolExecutor(self.jobs,
                                                           thread_name_prefix="grade")
        self._stop = threading.Event()

    def submit(self, job: Job) -> concurrent.futures.Future:
        return self._pool.submit(self._run, job)

    def _run(self, job: Job) -> Attempt:
        submission = job.submission
        if self._stop.is_set():
            return Attempt(submission.student_id, None, None, stopped=True)
        assert submission.path is not None
        return run_grade(submission.path, submission.student_id, job.options, job.scratch,
                         job.timeout, self._stop.is_set)

    def stop(self) -> None:
        self._stop.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------- the batch


@dataclass(frozen=True)
class BatchOptions:
    """How a batch runs: where it writes, what it regrades, how long a run may take."""

    out: Path
    grading: GradingOptions = GradingOptions()
    regrade: bool = False
    timeout: float | None = DEFAULT_TIMEOUT


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
class Plan:
    """What a batch found before it started grading."""

    to_grade: tuple[Submission, ...]
    done: tuple[Submission, ...]
    not_graded: tuple[Submission, ...]


@dataclass(frozen=True)
class BatchOutcome:
    """The end of a batch: what it graded and failed to grade, and whether it was stopped."""

    plan: Plan
    graded: tuple[str, ...] = ()     # student ids graded (or regraded) by this batch
    failed: tuple[str, ...] = ()     # student ids whose grading run failed (no result)
    interrupted: bool = False
    rows: tuple[gradebook.Row, ...] = field(default=(), repr=False)

    @property
    def exit_code(self) -> int:
        """130 when interrupted, 1 when a grading run failed (run again), else 0."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_FAILED if self.failed else EXIT_OK


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
            for leftover in folder.glob(".*.tmp"):      # write_json_atomic's temporary files
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


def run_batch(submissions: list[Submission], options: BatchOptions, runner: Runner,
              progress: Progress | None = None,
              stop: threading.Event | None = None) -> BatchOutcome:
    """Grade what is not done yet, writing each result as soon as it is done.

    Setting ``stop`` (a signal handler's job) or Ctrl-C (KeyboardInterrupt) stops
    the batch: nothing more starts, the running grading runs are stopped, and
    the gradebook and summary are written for what is done.

        folder = Path("grades")
        found, _ = find_submissions(Path("class.zip"), folder / ".work")
        outcome = run_batch(found, BatchOptions(out=folder), LocalRunner(jobs=2))
    """
    folder = OutputFolder(options.out)
    stop = stop or threading.Event()
    with folder.locked():
        folder.prepare()
        plan = plan_batch(submissions, folder, options.regrade)
        state = _BatchState(folder, submissions, progress or _Silent(), len(plan.to_grade))
        state.write_books()
        state.progress.started(plan)
        try:
            try:
                for submission in plan.to_grade:
                    if stop.is_set():
                        break
                    scratch = folder.pending / f"{submission.student_id}.{uuid.uuid4().hex[:8]}"
                    job = Job(submission, options.grading, scratch, options.timeout)
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
                                                         state.failures.get(submission.student_id))
                          for submission in submissions}
            state.write_books()
            shutil.rmtree(folder.pending, ignore_errors=True)
    failed = tuple(sorted(sid for sid in state.failures if sid not in state.graded))
    return BatchOutcome(plan, tuple(state.graded), failed, stop.is_set(),
                        tuple(state.rows[submission.student_id] for submission in submissions))


def _submit(runner: Runner, job: Job) -> concurrent.futures.Future:
    try:
        return runner.submit(job)
    except Exception as problem:   # this submission could not be sent: it fails, not the batch
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_exception(problem)
        return future


class _BatchState:
    """The books of a running batch, and the grading runs it waits for."""

    def __init__(self, folder: OutputFolder, submissions: list[Submission],
                 progress: Progress, total: int) -> None:
        self.folder = folder
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

    def write_books(self) -> None:
        ordered = [self.rows[submission.student_id] for submission in self.submissions]
        gradebook.write_gradebook(self.folder.gradebook, ordered)
        gradebook.write_summary(self.folder.summary, ordered,
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


# ---------------------------------------------------------------- command line

HELP_EPILOG = """\
student ids (an id keeps letters, digits and . _ @ + -; other characters become _):
  alice.py                                      alice
  alice/  (a folder)                            alice
  Full Name_12345_assignsubmission_file_/       12345   (Moodle, with its name)
  Full Name_12345_assignsubmission_file_x.py    12345   (Moodle without folders)
  lastfirst_12345_67890_mm_player.py            12345   (Canvas, with its name)
  lastfirst_LATE_12345_67890_mm_player.py       12345   (Canvas, marked late)
  submission_123456/                            123456  (Gradescope export)
the file graded, in a folder or among one student's Canvas/Moodle files: the only
.py file (subfolders too), else the one named mm_player.py. A .zip is unpacked into
DIR/.work (unsafe paths and links skipped, sizes capped); if its top level is a
single folder, that folder holds the class. Duplicate ids, empty folders, binary
and non-.py files are reported as "not graded: why", never fatal.

output: DIR/results/ID.json (Gradescope results), DIR/reports/ID.txt (text
report), DIR/gradebook.csv, DIR/summary.html, DIR/logs/ID.log (grader failures).
Run the same command again after an interruption: what is done is kept.

exit status: 0 done, 1 some grading runs failed (run again to retry them),
2 usage error, 130 interrupted (the gradebook covers what was done).

examples:
  python -m grader batch submissions/ --out grades
  python -m grader batch moodle-download.zip --out grades --jobs 4 --config secret.cfg
  python -m grader batch canvas.zip --out grades --regrade --visibility categories
  python -m grader batch class/ --out grades --scheduler tcp://10.0.0.5:8786
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``batch`` to the subcommands of ``python -m grader``."""
    parser = commands.add_parser(
        "batch", help="grade a whole class (a folder or an LMS zip), resumably",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade every submission in SUBMISSIONS, each in its own `python -m grader\n"
                    "grade` process, into DIR: results, reports, gradebook.csv and "
                    "summary.html.\nResumable: run it again and it goes on where it stopped.",
        epilog=HELP_EPILOG)
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS",
                        help="a folder of .py files, a folder of folders (one per student), "
                             "or a .zip as Moodle, Canvas or Gradescope download it")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the output folder (created; reused to resume)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="grade N submissions at a time on this machine "
                             "(default: the number of cores, %(default)s here)")
    parser.add_argument("--regrade", action="store_true",
                        help="grade every submission again, even those with a result in DIR")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a Dask cluster instead (e.g. tcp://10.0.0.5:8786); "
                             "needs pip install 'ttt-minimax[dask]' here and on the workers")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="stop a grading run that takes longer than this many wall "
                             "seconds and report it (default: %(default)g; 0: no limit)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar or line per submission: only the summary")
    add_grading_options(parser)
    parser.set_defaults(func=batch_command)


def batch_command(args: argparse.Namespace) -> int:
    """``python -m grader batch``: the front end (prints; the rest of this module does not)."""
    if args.jobs < 1:
        print("python -m grader batch: error: --jobs must be 1 or more", file=sys.stderr)
        return EXIT_USAGE
    folder = OutputFolder(args.out)
    try:
        submissions, warnings = find_submissions(args.submissions, folder.work)
    except SubmissionsError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not submissions:
        print(f"python -m grader batch: error: no submissions found in {args.submissions}",
              file=sys.stderr)
        return EXIT_USAGE
    options = BatchOptions(out=args.out, grading=GradingOptions.from_args(args),
                           regrade=args.regrade, timeout=args.timeout or None)
    from grader.engine import Config, ConfigError
    try:       # a bad configuration would fail every grading run: say so once, now
        Config.load(options.grading.config)
    except ConfigError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.scheduler:
            from grader import distributed
            runner: Runner = distributed.DaskRunner(args.scheduler)
        else:
            runner = LocalRunner(args.jobs)
    except ImportError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as problem:
        print(f"python -m grader batch: error: cannot reach the scheduler {args.scheduler}: "
              f"{problem}", file=sys.stderr)
        return EXIT_USAGE
    stop = threading.Event()
    previous = _stop_on_signals(stop)
    progress = ConsoleProgress(quiet=args.quiet)
    try:
        outcome = run_batch(submissions, options, runner, progress, stop)
    except BatchLockedError as problem:
        runner.close()
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        progress.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print(closing_lines(outcome, folder), file=sys.stderr)
    return outcome.exit_code


def _stop_on_signals(stop: threading.Event) -> dict[int, Any]:
    """Ctrl-C and SIGTERM set ``stop`` (a second one interrupts the wait for the end)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def on_signal(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    return {signum: signal.signal(signum, on_signal)
            for signum in (signal.SIGINT, signal.SIGTERM)}


def closing_lines(outcome: BatchOutcome, folder: OutputFolder) -> str:
    """The lines the batch ends with: what happened, where the books are."""
    rows = outcome.rows
    graded = [row for row in rows if row.score is not None]
    lines = []
    if outcome.interrupted:
        lines.append("interrupted: run the same command again to go on where it stopped")
    lines.append(f"{len(rows)} submissions: {len(graded)} with a score, "
                 f"{len(outcome.graded)} graded now, {len(outcome.plan.done)} already done, "
                 f"{len(outcome.plan.not_graded)} not graded, {len(outcome.failed)} failed")
    for row in rows:
        if row.score is None:
            lines.append(f"  {row.student_id}: {row.status}")
    lines.append(f"gradebook: {folder.gradebook}")
    lines.append(f"summary:   {folder.summary}")
    return "\n".join(lines)


class ConsoleProgress:
    """A tqdm bar on a terminal; one line per finished submission otherwise (or nothing)."""

    def __init__(self, quiet: bool = False, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.bar: Any = None

    def started(self, plan: Plan) -> None:
        if self.quiet:
            return
        reasons = f", {len(plan.not_graded)} not graded" if plan.not_graded else ""
        print(f"{len(plan.to_grade)} to grade, {len(plan.done)} already done{reasons}",
              file=self.stream, flush=True)
        for submission in plan.not_graded:
            print(f"  not graded: {submission.student_id}: {submission.problem}",
                  file=self.stream, flush=True)
        if plan.to_grade and _isatty(self.stream):
            from tqdm import tqdm
            self.bar = tqdm(total=len(plan.to_grade), file=self.stream, unit="submission",
                            desc="grading", dynamic_ncols=True, smoothing=0.1)

    def finished(self, event: Finished) -> None:
        if self.quiet:
            return
        row = event.row
        score = f"{row.score:g} / {row.max_score:g}" if row.score is not None else row.status
        line = (f"[{event.done}/{event.total}] {row.student_id}: {score} "
                f"({event.attempt.seconds:.1f} s)")
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(f"last: {row.student_id} {score}", refresh=True)
            if row.score is None:
                self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def stopping(self) -> None:
        message = "stopping: waiting for the running grading runs to end..."
        if self.bar is not None:
            self.bar.write(message, file=self.stream)
        elif not self.quiet:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False

"""The student's process: start it, limit it, talk to it, kill it, restart it.

The grader never imports student code. A :class:`Sandbox` runs :mod:`grader.worker` in a
child process that imports the submission; the parent sends positions and gets back only
answers, over a private pipe, as JSON, each echoing a fresh random token. One bad call
(exception, timeout, crash, garbage) costs that call: the worker is restarted before the next.

>>> from grader.position import Position
>>> with Sandbox(Path("tests/submissions/sandbox/legacy.py")) as box:  # doctest: +SKIP
...     box.call("mm_move", Position.empty(2), cpu_limit=1.0)
Reply(status='ok', answer=(1, (0, 0)), cpu_seconds=0.0004, board_after=(1, 1, 1, 1), ...)

Layers, each one on whenever this machine allows it (``Sandbox.isolation`` says which were):

- a separate process in its own session and process group, stdin from /dev/null, a scrubbed
  environment, ``python -I -S``, a private working directory holding only a copy of the file;
- rlimits set by the worker before the submission is read: address space, file size, open
  files, processes, no core dumps; no new privileges (setuid binaries give nothing);
- as root, a uid of its own: the worker becomes a uid (and gid) that no other process uses,
  drawn from ``SANDBOX_UIDS``, so its process limit is its own, it cannot signal or trace
  the grader or another sandbox, and the fallback finds every process it started by that
  uid; where that uid could not read the Python installation (under /root, say), the worker
  keeps one capability, CAP_DAC_READ_SEARCH, and Landlock confines what it reads;
- Landlock when the kernel has it: reads only beneath the system, the Python installation,
  ``provided``, the worker, the shims and the box; writes only to its scratch directory;
  no TCP (ABI 4+); no signal to any process outside the sandbox (ABI 6+);
- bubblewrap when it is installed and works (``TTT_GRADER_NO_BWRAP=1`` or ``use_bwrap=False``
  turns it off): only the system, the Python installation, ``provided``, the worker and the
  shims are visible, read-only; a private /tmp; no network; a pid namespace, so killing its
  init kills everything the student started, double-forked daemons included.

What stays weaker (tests/test_hostile.py checks the rest, on both paths):

- without Landlock, the fallback confines neither reads, nor writes to world-writable places
  such as /tmp, nor the network; with it, UDP and path-named unix sockets (subject to their
  file permissions) stay reachable;
- not run as root, the fallback runs the student as the grader's own uid: stragglers are
  found by their environment only, and without Landlock ABI 6 the student could signal the
  grader's other processes;
- the board after a call is reported by the worker, inside the student's process, so a
  determined submission can forge it. An answer can only ever be forged into another
  answer: the grader judges it. Time is not forgeable: the parent reads the worker's CPU
  time from /proc (every thread, and children it has reaped), not from the worker;
- CPU time spent by processes the student started and left running is not counted.

Time: :meth:`Sandbox.call` stops a call as soon as the worker has used its CPU limit, or
has been *active* (on a CPU, or sleeping, or blocked: anything but waiting for a CPU that
other processes hold) for the limit plus ``Limits.grace``; a busy machine slows a call
down without moving it closer to its limit. The first worker times the reference search
(``grader.timing``) from outside, before the submission is loaded; :meth:`Sandbox.calibrate`
times it again, now, in a *reference worker*: a second worker, started when first needed,
that never loads the submission (student code could slow the reference down from inside
its own process). The latest result is ``Sandbox.calibration``.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import py_compile
import re
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tokenize
import weakref
from dataclasses import dataclass
from importlib.util import MAGIC_NUMBER, cache_from_source
from pathlib import Path

import provided
from grader.position import Position
from grader.timing import (REFERENCE_3X3, REFERENCE_4X4, REFERENCE_RUNS, Calibration,
                           TimingError)

__all__ = ["Limits", "Reply", "Opaque", "LoadError", "SandboxError", "Sandbox", "SANDBOX_UIDS",
           "bwrap_available", "read_submission", "python2_fix"]

# The uids a sandbox may take as its own when the grader runs as root: far above any real
# user's, and above the ranges that /etc/subuid usually hands out.
SANDBOX_UIDS = range(0x70000000, 0x70000000 + (1 << 24))
FUNCTIONS = ("mm_move", "move_wrapper")
LOAD_ERROR_KINDS = ("missing", "not_a_file", "too_large", "empty", "binary", "encoding",
                    "syntax", "python2", "import_error", "exit", "timeout", "no_function")

_GRADER = Path(__file__).resolve().parent
_WORKER = _GRADER / "worker.py"
_SHIMS = _GRADER / "shims"
_BOX = "/box"                    # the private directory, as seen inside bubblewrap
_ANSWER_FIELDS = {"tok", "status", "answer", "board", "error"}
_MAX_SOURCE = 4 << 20            # bytes; a bigger "submission" is not source code
_MAX_ANSWER = 1 << 20            # bytes of one answer line; the worker's encoding stays far below
_MAX_ERROR = 8000                # characters of an error text kept
_CUT = "..."                     # Opaque.type_name of the part of an answer left out
_BOOTSTRAP = ("import sys; sys.path[0:0] = [sys.argv[1]]; import worker; "
              "worker.main(sys.argv[2])")


@dataclass(frozen=True)
class Limits:
    """Per-sandbox limits.

    A call that waits (sleeps, blocks on input) is stopped ``grace`` seconds past its limit;
    whatever /proc says, the wall-clock backstop of a call is ``backstop(limit)``.

    >>> Limits().backstop(2.0)
    50.0
    """

    memory_bytes: int = 1 << 30     # address space (RLIMIT_AS)
    output_bytes: int = 64 * 1024   # stdout+stderr kept per call and at load; the rest is counted
    load_seconds: float = 10.0      # wall time to import the submission (and time the reference)
    grace: float = 0.1              # seconds a waiting call may run past its limit
    backstop_factor: float = 20.0   # only when /proc cannot be read, or the machine is swamped
    backstop_slack: float = 10.0
    file_bytes: int = 16 << 20      # largest file the student may write (RLIMIT_FSIZE)
    open_files: int = 64            # RLIMIT_NOFILE
    processes: int = 64             # RLIMIT_NPROC; threads count; root ignores it, nobody doesn't
    tmp_bytes: int = 64 << 20       # size of the private /tmp under bubblewrap

    def backstop(self, limit: float) -> float:
        return limit * self.backstop_factor + self.backstop_slack


@dataclass(frozen=True)
class Opaque:
    """A returned value that is not an exact tuple/list/int/bool/float/None/str.

    ``base`` is the built-in value inside a subclass (a namedtuple's tuple), else None.

    It shows itself as the student would read it, inside a tuple too:

    >>> Opaque("Move", "Move(row=1, col=2)", (1, 2)) == (1, 2)
    False
    >>> (0, Opaque("Move", "Move(row=1, col=2)", (1, 2)))
    (0, Move(row=1, col=2) (a Move))
    """

    type_name: str
    repr: str
    base: object = None

    def __str__(self) -> str:
        if self.type_name == _CUT:
            return self.repr
        return f"{self.repr} (a {self.type_name})"

    __repr__ = __str__


@dataclass(frozen=True)
class Reply:
    """What one call produced.

    ``status`` is "ok" (``answer`` holds the decoded value), "error" (the function raised;
    ``error`` says what and where), "timeout" or "crash" (the worker died or sent garbage;
    it is restarted before the next call). ``cpu_seconds`` is measured from outside the
    worker; ``active_seconds`` is the wall time minus the time it waited for a CPU.
    ``waited`` is true for a timeout that came from waiting (sleep, input, a lock) rather
    than computing: the machine's load cannot have caused it.
    """

    status: str
    answer: object
    cpu_seconds: float
    board_after: tuple[int, ...] | None
    output: str
    error: str
    active_seconds: float = 0.0
    waited: bool = False


class LoadError(Exception):
    """The submission could not be loaded; ``message`` says what to change.

    ``kind`` is one of ``LOAD_ERROR_KINDS``; ``line`` and ``text`` point into the file when
    that makes sense.

    >>> str(LoadError("empty", "the file is empty"))
    'the file is empty'
    """

    def __init__(self, kind: str, message: str, line: int | None = None, text: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.text = text


class SandboxError(RuntimeError):
    """The sandbox itself failed (bubblewrap or Python could not start, or it was closed)."""


class Sandbox:
    """One submission's worker process. A context manager; ``close()`` may be called twice.

    >>> box = Sandbox(Path("mm_player.py"), Limits(memory_bytes=512 << 20))
    >>> box.start()  # doctest: +SKIP
    >>> box.call("move_wrapper", Position.empty(3), cpu_limit=2.0, trials=1)  # doctest: +SKIP
    Reply(status='ok', answer=(1, 1), cpu_seconds=0.41, board_after=(1, 1, 1, 1, ...), ...)
    >>> box.close()
    """

    def __init__(self, submission: Path, limits: Limits = Limits(), *,
                 use_bwrap: bool | None = None) -> None:
        self.submission = Path(submission)
        self.limits = limits
        self.use_bwrap = use_bwrap
        self.isolation: tuple[str, ...] = ()
        self.restarts = 0
        self.load_output = ""
        self.import_calls: tuple[str, ...] = ()   # "play_game"/"run_gui" skipped at import
        self.calibration: Calibration | None = None  # the reference, timed in this sandbox
        self.calibrations = 0                        # how many times it was timed
        self._interrupted = False
        self._resources = _Resources()
        self._finalizer = weakref.finalize(self, self._resources.release)
        self._started = False
        self._closed = False
        self._bwrap = False
        self._uid: int | None = None    # the sandbox's own uid (root only)
        self._name = ""
        self._lines: list[str] = []

    def __enter__(self) -> "Sandbox":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running" if self._started else "new"
        return f"<Sandbox {self.submission} {state}, {self.restarts} restarts>"

    def start(self) -> None:
        """Start the worker and import the submission. Raises LoadError or SandboxError."""
        if self._closed:
            raise SandboxError("this sandbox is closed")
        if self._started:
            return
        try:
            source, text = read_submission(self.submission)
            self._lines = text.splitlines()
            self._bwrap = _want_bwrap(self.use_bwrap)
            self._name = _safe_name(self.submission.name)
            self._uid = _pick_uid() if os.geteuid() == 0 else None
            self._resources.box = _make_box(self._name, source, self._uid)
            self._spawn()
        except BaseException:
            self.close()
            raise
        self._started = True

    def close(self) -> None:
        """Kill the worker and everything it started; remove the private directory."""
        self._closed = True
        self._resources.release()

    def interrupt(self) -> None:
        """Ask the call in progress (or the next one) to stop: it raises KeyboardInterrupt.

        Safe from a signal handler: it only sets a flag that calls look at between polls."""
        self._interrupted = True

    def ready(self) -> str | None:
        """Make sure a worker is running (restarting it after a timeout or a crash, and
        timing the reference again after a timeout). None, or why it could not restart."""
        if self._closed:
            raise SandboxError("this sandbox is closed")
        if not self._started:
            self.start()
        if self._resources.worker is None:
            try:
                self._spawn()
            except (LoadError, SandboxError) as exc:
                return f"the worker could not be restarted: {exc}"
            finally:
                self.restarts += 1
        return None

    def call(self, function: str, position: Position, cpu_limit: float,
             trials: int = 1) -> Reply:
        """Call ``mm_move(board, player)`` or ``move_wrapper(board, player, trials)``.

        The worker builds a fresh ``provided.TTTBoard`` from ``position``. The call is
        stopped when it has used ``cpu_limit`` seconds of CPU time, or has been active
        (computing or waiting, not queued behind other processes) for ``cpu_limit`` plus
        ``Limits.grace``. After a timeout or a crash the worker is killed, and restarted
        before the next call (after a timeout, with the reference timed again).
        """
        if function not in FUNCTIONS:
            raise ValueError(f"function must be one of {FUNCTIONS}, got {function!r}")
        if not cpu_limit > 0:
            raise ValueError(f"cpu_limit must be positive, got {cpu_limit!r}")
        if self._interrupted:
            raise KeyboardInterrupt
        problem = self.ready()
        if problem is not None:
            return Reply("crash", None, 0.0, None, "", problem)
        worker = self._resources.worker
        assert worker is not None
        token = secrets.token_hex(8)
        worker.output.clear()
        watch = _Watch(worker.clock, cpu_limit, self.limits, lambda: self._interrupted)
        try:
            worker.send({"tok": token, "op": "call", "fn": function, "dim": position.dim,
                         "cells": position.cells, "player": position.player,
                         "reverse": position.reverse, "trials": trials})
            message = worker.receive(token, watch.deadline, watch.check)
            cpu, active = watch.finish()
            reply = self._reply(message, position, worker, cpu, active)
        except _Late as late:
            cpu, active = watch.finish()
            self._stop_worker()
            return Reply("timeout", None, max(cpu, 0.0), None, worker.output.take(),
                         late.describe(function, cpu_limit, cpu, active), active,
                         late.waited)
        except _Broken as exc:
            return self._crash(worker, exc)
        except BaseException:
            self._stop_worker()  # a KeyboardInterrupt mid-call leaves the protocol unknown
            raise
        return reply

    def calibrate(self) -> Calibration:
        """Time the reference again, now, in the reference worker (started if need be)."""
        if self._closed:
            raise SandboxError("this sandbox is closed")
        if not self._started:
            self.start()
            assert self.calibration is not None
            return self.calibration
        worker = self._resources.reference
        try:
            if worker is None:
                worker = self._resources.reference = self._start_worker()
                self._ask(worker, _reference_request(Position.empty(2)), first=True)
                worker.find_pid()
            self._time_reference(worker)
        except (_Late, _Broken, TimingError, SandboxError) as exc:
            if self._resources.reference is not None:
                self._resources.reference.stop()
                self._resources.reference = None
            raise SandboxError(f"the reference worker failed: {exc}") from None
        assert self.calibration is not None
        return self.calibration

    # -- internals -----------------------------------------------------------------------

    def _start_worker(self) -> "_Worker":
        box = self._resources.box
        assert box is not None
        read_cap = self._uid is not None and not self._bwrap and not _others_can_read(box)
        return _Worker.start(box, self._name, self.limits, self._bwrap, self._uid, read_cap)

    def _spawn(self) -> None:
        """Start a worker and load the submission into it; raise LoadError on failure."""
        worker = self._start_worker()
        self._resources.worker = worker
        calibrate = self.calibration is None  # the first worker, before any student code
        try:
            # The first request is answered by the hello; a reference search, untimed,
            # also warms the interpreter up for the timed ones.
            hello = self._ask(worker, _reference_request(Position.empty(2)), first=True)
            worker.find_pid()
            if not self.isolation:
                self.isolation = _describe_layers(hello, self._bwrap, self.limits)
            if calibrate:
                self._time_reference(worker)
        except (_Late, _Broken, TimingError) as exc:  # no student code has run yet: our problem
            status = self._stop_worker(grace=0.5)
            why = (f"did not start within {self.limits.load_seconds:g} s"
                   if isinstance(exc, _Late) else f"{status or exc} before it was ready")
            raise SandboxError(f"the worker {why}: {worker.output.take().strip()}") from None
        token = secrets.token_hex(8)
        deadline = time.monotonic() + self.limits.load_seconds
        worker.send({"tok": token, "op": "load"})
        try:
            message = worker.receive(token, deadline)
        except _Late:
            self._stop_worker()
            raise LoadError("timeout", f"importing the submission took more than "
                            f"{self.limits.load_seconds:g} s; the top level of the file "
                            "should only define functions (does it play a game or run a "
                            "search when it is imported?)") from None
        except _Broken as exc:
            status = self._stop_worker(grace=0.5)
            output = worker.output.take()
            raise LoadError("exit", f"the submission stopped Python while it was being "
                            f"imported ({status or exc}); remove any os._exit() or other "
                            f"code that ends the program at the top level"
                            + _tail(output)) from None
        load_output = worker.output.take()
        if not self.restarts:
            self.load_output = load_output
        if message.get("status") == "loaded":
            calls = message.get("calls")
            self.import_calls = tuple(str(c) for c in calls) if type(calls) is list else ()
            return
        self._stop_worker()
        if message.get("status") == "load_error":
            raise self._load_error(message)
        raise LoadError("exit", "the worker sent an unexpected answer while importing the "
                        "submission")

    def _ask(self, worker: "_Worker", request: dict, first: bool = False) -> dict:
        """One request before the submission is loaded; with ``first``, return the hello."""
        token = secrets.token_hex(8)
        deadline = time.monotonic() + self.limits.load_seconds
        worker.send(dict(request, tok=token))
        hello = worker.receive(token, deadline) if first else {}
        answer = worker.receive(token, deadline)
        if answer.get("status") != "ref":
            raise _Broken("did not run the reference search")
        return hello

    def _time_reference(self, worker: "_Worker") -> None:
        """Time the reference search in this worker, from outside, before any student code.

        The 3x3 and 4x4 searches alternate, so that a change in the machine's speed while
        they run hits both alike; the median of each counts.
        """
        runs: dict[Position, list[float]] = {REFERENCE_3X3: [], REFERENCE_4X4: []}
        for _ in range(REFERENCE_RUNS):
            for position, times in runs.items():
                before = worker.clock.cpu()
                self._ask(worker, _reference_request(position))
                times.append(worker.clock.cpu() - before)
        self.calibration = Calibration.from_runs(runs[REFERENCE_3X3], runs[REFERENCE_4X4])
        self.calibrations += 1

    def _load_error(self, message: dict) -> LoadError:
        kind = message.get("kind")
        line = message.get("line") if type(message.get("line")) is int else None
        text = self._source_line(line) or _string(message.get("text"))
        detail = _string(message.get("message"))
        if kind == "syntax":
            fix = python2_fix(text) if line is not None else None
            if fix is not None:
                return LoadError("python2", _python2_message(line, text, fix, self._lines),
                                 line, text)
            where = f"line {line}: " if line is not None else ""
            shown = f"\n    {text}" if text else ""
            if detail.startswith("TabError"):
                shown += "\n-> indent with spaces only (4 per level), never with tabs"
            return LoadError("syntax", f"{where}{detail}{shown}", line, text)
        if kind == "import_error":
            hint = _python2_hint(detail, text)
            if hint and detail.startswith("NameError"):
                return LoadError("python2", f"line {line}: {text}  -> {hint}\nThis file is "
                                 "Python 2; the grader runs Python 3.", line, text)
            hint = hint or _import_hint(detail)
            where = f"line {line}: {text}\n" if line is not None else ""
            return LoadError("import_error", f"{where}importing the submission raised "
                             f"{detail}" + (f"\n-> {hint}" if hint else ""), line, text)
        if kind == "exit":
            where = f" at line {line}: {text}" if line is not None else ""
            return LoadError("exit", f"the submission called sys.exit() (or exit()/quit()) "
                             f"while being imported{where}; remove that call", line, text)
        if kind == "no_function":
            functions = message.get("functions")
            names = ", ".join(_string(f) for f in functions) if type(functions) is list else ""
            found = f" (it defines: {names})" if names else " (it defines no functions)"
            return LoadError("no_function", f"the submission must define a function "
                             f"mm_move(board, player): {detail}{found}")
        return LoadError("exit", f"the worker reported an unknown problem: {detail}")

    def _source_line(self, line: int | None) -> str:
        if line is None or not 0 < line <= len(self._lines):
            return ""
        return self._lines[line - 1].strip()

    def _reply(self, message: dict, position: Position, worker: "_Worker", cpu: float,
               active: float) -> Reply:
        status = message.get("status")
        if status not in ("ok", "error"):
            raise _Broken("sent an answer of an unknown kind")
        if not set(message) <= _ANSWER_FIELDS:  # the worker never sends anything else
            raise _Broken("sent an answer with fields the worker never sends")
        board = message.get("board")
        size = position.dim * position.dim
        if type(board) is list and len(board) == size and all(type(v) is int for v in board):
            board_after: tuple[int, ...] | None = tuple(board)
        elif board is None:
            board_after = None
        else:
            raise _Broken("sent a bad board")
        if status == "ok":
            return Reply("ok", _decode(message.get("answer")), cpu, board_after,
                         worker.output.take(), "", active)
        error = _string(message.get("error"))[:_MAX_ERROR]
        hint = _python2_hint(error.partition("\n")[0], "")
        if hint:
            error += f"\nThis looks like Python 2: {hint}"
        return Reply("error", None, cpu, board_after, worker.output.take(), error, active)

    def _crash(self, worker: "_Worker", broken: _Broken) -> Reply:
        if self._closed:
            return Reply("crash", None, 0.0, None, "", "the sandbox was closed during the call")
        status = self._stop_worker(grace=0.5 if broken.ended else 0.0)
        output = worker.output.take()
        return Reply("crash", None, 0.0, None, output,
                     f"the worker process {status or broken}" + _tail(output))

    def _stop_worker(self, grace: float = 0.0) -> str:
        """Kill the current worker; describe how it ended if it ended by itself."""
        worker, self._resources.worker = self._resources.worker, None
        return worker.stop(grace) if worker is not None else ""


# -- submission files ------------------------------------------------------------------------

def read_submission(path: Path) -> tuple[bytes, str]:
    """Read a submission's bytes and decode them, or raise LoadError. Runs nothing.

    >>> read_submission(Path("/nonexistent/mm.py"))
    Traceback (most recent call last):
    ...
    grader.sandbox.LoadError: there is no file /nonexistent/mm.py
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise LoadError("missing", f"there is no file {path}") from None
    except OSError as exc:
        raise LoadError("missing", f"{path} cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        try:
            inside = sorted(p.name for p in path.glob("*.py"))[:5]
        except OSError:
            inside = []
        hint = f" (it holds {', '.join(inside)})" if inside else ""
        raise LoadError("not_a_file", f"{path} is a folder, not a Python file: give the path "
                        f"of the .py file inside it{hint}")
    if not stat.S_ISREG(info.st_mode):
        raise LoadError("not_a_file", f"{path} is not a regular file")
    if info.st_size > _MAX_SOURCE:
        raise LoadError("too_large", f"{path} is {info.st_size:,} bytes, too large to be "
                        "the Python source of one assignment")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError("not_a_file", f"{path} cannot be read: {exc.strerror}") from None
    if not data.strip():
        raise LoadError("empty", f"{path} is empty: submit the file in which you wrote "
                        "mm_move")
    nul = data.find(b"\0")
    if nul >= 0:
        raise LoadError("binary", f"{path} is not a text file (it holds a NUL byte at offset "
                        f"{nul}): submit the .py source file, not a .pyc, a zip or a "
                        "document", data.count(b"\n", 0, nul) + 1)
    try:  # honours a PEP 263 coding line, as Python would
        encoding, problem = tokenize.detect_encoding(io.BytesIO(data).readline)[0], ""
    except SyntaxError as exc:  # a bad coding line, or bad bytes in the first two lines
        encoding, problem = "utf-8", str(exc)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise LoadError("encoding", f"line {line}, column {column}: byte "
                        f"0x{data[exc.start]:02x} (offset {exc.start}) is not valid "
                        f"{encoding}; save the file as UTF-8", line) from None
    if problem:
        raise LoadError("encoding", f"{path}: {problem}; save the file as UTF-8 and remove "
                        "the coding line")
    return data, text.lstrip("\ufeff")


def _safe_name(name: str) -> str:
    """The submission's file name if it is a plain one, else submission.py."""
    if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\- ]{0,99}", name):
        return name
    return "submission.py"


def _make_box(name: str, source: bytes, uid: int | None) -> Path:
    """A private directory holding only a copy of the submission (and, unused under
    bubblewrap, a scratch directory for HOME and TMPDIR, owned by ``uid``)."""
    box = Path(tempfile.mkdtemp(prefix="ttt-sandbox-"))
    try:
        box.chmod(0o755)  # the sandbox's uid must read it; only the grader may write
        (box / name).write_bytes(source)
        (box / name).chmod(0o644)
        scratch = box / ".tmp"
        scratch.mkdir(mode=0o700)
        if uid is not None:
            os.chown(scratch, uid, uid)
    except BaseException:
        shutil.rmtree(box, ignore_errors=True)
        raise
    return box


# -- Python 2 ----------------------------------------------------------------------------------

_PRINT = re.compile(r"^(?P<indent>\s*)print(?![\w(])\s*(?P<rest>.*?)\s*$")
_EXCEPT = re.compile(r"^(?P<head>\s*except\s+)(?P<types>.+?)\s*,\s*(?P<name>[A-Za-z_]\w*)\s*:")
_RAISE = re.compile(r"^(?P<indent>\s*)raise\s+(?P<type>[\w.]+)\s*,\s*(?P<args>.+?)\s*$")
_EXEC = re.compile(r"^(?P<indent>\s*)exec\s+(?![\s(])(?P<code>.+?)(?:\s+in\s+(?P<ns>.+?))?\s*$")
_BACKTICK = re.compile(r"`([^`]+)`")
_OCTAL = re.compile(r"(?<![\w.])0([0-7]+)(?![\w.])")
_LONG = re.compile(r"(?<![\w.])(\d+)[lL](?!\w)")
_RENAMED = {"xrange": "range", "raw_input": "input", "unicode": "str", "basestring": "str",
            "long": "int", "unichr": "chr", "file": "open", "intern": "sys.intern"}
_METHODS = {"iteritems": "items", "itervalues": "values", "iterkeys": "keys",
            "maxint": "maxsize", "letters": "ascii_letters", "lowercase": "ascii_lowercase",
            "uppercase": "ascii_uppercase"}


def _split_comment(line: str) -> tuple[str, str]:
    """Split off a trailing # comment, minding quotes."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:i].rstrip(), "  " + line[i:]
    return line, ""


def python2_fix(line: str) -> str | None:
    """The Python 3 spelling of a Python 2 line, or None if the line is not Python 2.

    >>> python2_fix('print "hi"')
    'print("hi")'
    >>> python2_fix("    print >>sys.stderr, x, y,")
    '    print(x, y, end=" ", file=sys.stderr)'
    >>> python2_fix("except ValueError, e:")
    'except ValueError as e:'
    >>> python2_fix("print(x)") is None
    True
    """
    code, comment = _split_comment(line.rstrip("\r\n"))
    match = _PRINT.match(code)
    if match and match["rest"] and match["rest"][0] not in "=.[,()":
        rest, extra = match["rest"], []
        if rest.startswith(">>"):
            target, _, rest = rest[2:].partition(",")
            extra.append(f"file={target.strip()}")
            rest = rest.strip()
        if rest.endswith(","):
            rest = rest[:-1].rstrip()
            extra.insert(0, 'end=" "')
        args = ", ".join(([rest] if rest else []) + extra)
        return f"{match['indent']}print({args}){comment}"
    match = _EXCEPT.match(code)
    if match and match["types"].count("(") == match["types"].count(")"):
        return f"{match['head']}{match['types']} as {match['name']}:{code[match.end():]}{comment}"
    match = _RAISE.match(code)
    if match:
        return f"{match['indent']}raise {match['type']}({match['args']}){comment}"
    match = _EXEC.match(code)
    if match:
        ns = f", {match['ns']}" if match["ns"] else ""
        return f"{match['indent']}exec({match['code']}{ns}){comment}"
    fixed = _BACKTICK.sub(r"repr(\1)", code).replace("<>", "!=")
    fixed = _LONG.sub(r"\1", _OCTAL.sub(r"0o\1", fixed))
    if fixed != code:
        return fixed + comment
    return None


def _python2_message(line: int, text: str, fix: str, lines: list[str]) -> str:
    others = [n for n, other in enumerate(lines, 1)
              if n != line and not other.lstrip().startswith("#") and python2_fix(other)]
    message = (f"line {line}: {text.strip()}  -> write {fix.strip()}\n"
               "This file is Python 2; the grader runs Python 3.")
    if others:
        shown = ", ".join(map(str, others[:10])) + (", ..." if len(others) > 10 else "")
        message += f" Lines that look like Python 2 too: {shown}."
    return message


def _python2_hint(error: str, text: str) -> str | None:
    """Advice for an error that Python 2 habits cause, from its first line.

    >>> _python2_hint("NameError: name 'xrange' is not defined", "for i in xrange(3):")
    'write for i in range(3):'
    >>> _python2_hint("AttributeError: 'dict' object has no attribute 'has_key'", "")
    'write key in d instead of d.has_key(key)'
    """
    match = re.match(r"NameError: name '(\w+)' is not defined", error)
    if match and match[1] in _RENAMED:
        old, new = match[1], _RENAMED[match[1]]
        if text:
            return "write " + re.sub(rf"\b{old}\b", new, text)
        return f"write {new} instead of {old}"
    if match and match[1] == "reduce":
        return "add `from functools import reduce` at the top of the file"
    match = re.match(r"AttributeError: .* has no attribute '(\w+)'", error)
    if match and match[1] == "has_key":
        return "write key in d instead of d.has_key(key)"
    if match and match[1] in _METHODS:
        return f"write .{_METHODS[match[1]]} instead of .{match[1]}"
    return None


def _import_hint(detail: str) -> str | None:
    match = re.match(r"ModuleNotFoundError: No module named '([\w.]+)'", detail)
    if match:
        return (f"the module {match[1]} is not available to the grader (a CodeSkulptor "
                "module or a file that was not submitted?); remove that import")
    if detail.startswith("EOFError"):
        return "the grader types nothing: remove input() calls from the top level"
    return None


# -- answers -----------------------------------------------------------------------------------

def _decode(node: object, depth: int = 0) -> object:
    """Turn the worker's type-tagged JSON into a Python value; raise _Broken on nonsense.

    >>> _decode({"t": "tuple", "v": [{"t": "int", "v": 0}, {"t": "bool", "v": True}]})
    (0, True)
    >>> _decode({"t": "other", "type": "Liar", "repr": "<Liar>"})
    <Liar> (a Liar)
    """
    if type(node) is not dict or depth > 20:
        raise _Broken("sent a malformed answer")
    kind, value = node.get("t"), node.get("v")
    if kind == "none":
        return None
    if kind == "bool" and type(value) is bool:
        return value
    if kind == "int":
        if type(value) is int:
            return value
        if type(node.get("bits")) is int:
            return Opaque("int", f"<an int of {node['bits']} bits>")
    if kind == "float" and type(value) is str:
        try:
            return float(value)
        except ValueError:
            pass
    if kind == "str" and type(value) is str:
        if "more" in node:
            return Opaque("str", f"{value!r}... ({_string(node['more'])} more characters)")
        return value
    if kind in ("tuple", "list") and type(value) is list:
        items = [_decode(item, depth + 1) for item in value]
        if "more" in node:
            shown = ", ".join(map(repr, items[:8]))
            return Opaque(kind, f"[{shown}, ...] ({len(items) + _int(node['more'])} items)")
        return tuple(items) if kind == "tuple" else items
    if kind == "other" and type(node.get("type")) is str and type(node.get("repr")) is str:
        base = _decode(node["base"], depth + 1) if "base" in node else None
        return Opaque(node["type"], node["repr"], base)
    if kind == "cut":
        return Opaque(_CUT, "<the rest of the answer, too large to show>")
    raise _Broken("sent a malformed answer")


def _string(value: object) -> str:
    return value if type(value) is str else ""


def _int(value: object) -> int:
    return value if type(value) is int else 0


def _tail(output: str, lines: int = 5) -> str:
    kept = [line for line in output.strip().splitlines() if line.strip()][-lines:]
    return ("; its last output:\n" + "\n".join(kept)) if kept else ""


# -- the worker process ------------------------------------------------------------------------

def _reference_request(position: Position) -> dict:
    return {"op": "ref", "dim": position.dim, "cells": position.cells,
            "player": position.player, "reverse": position.reverse}


class _Late(Exception):
    """No answer in time: out of CPU time, or ``waited`` past the limit without computing."""

    def __init__(self, waited: bool = False, backstop: bool = False) -> None:
        super().__init__()
        self.waited = waited
        self.backstop = backstop

    def describe(self, function: str, limit: float, cpu: float, active: float) -> str:
        if self.backstop:
            return (f"{function} did not answer within the wall-clock backstop of its "
                    f"{limit:.2f} s limit and was stopped")
        if self.waited:
            return (f"{function} did not answer within its limit of {limit:.2f} s: it was "
                    f"stopped after {active:.2f} s in which it computed for only {cpu:.2f} s "
                    "(the rest it spent sleeping or waiting)")
        return f"{function} used more than its limit of {limit:.2f} s of CPU time and was stopped"


class ProcessClock:
    """The CPU time of one process as the kernel accounts it, read from /proc.

    Every live thread's exact run time (``schedstat``) or the process's own total (its dead
    threads and the children it reaped included, in clock ticks), whichever is larger; and
    how long its main thread has waited for a CPU. Nothing inside the process can change
    either. Returns 0.0 where /proc cannot be read (the process has gone).

    >>> clock = ProcessClock(os.getpid())
    >>> clock.cpu() > 0
    True
    """

    _TICK = 1 / os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.readable = self.read() is not None

    def read(self) -> tuple[float, float] | None:
        """(CPU seconds, seconds the main thread waited for a CPU), or None."""
        base = f"/proc/{self.pid}"
        try:
            fields = _read_proc(f"{base}/stat").rpartition(b")")[2].split()
            ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
            if fields[17] == b"1":  # one thread: the process's own schedstat is enough
                ran, delay = _read_proc(f"{base}/schedstat").split()[:2]
                exact, waited = int(ran), int(delay)
            else:
                exact = waited = 0
                for tid in os.listdir(f"{base}/task"):
                    try:
                        ran, delay = _read_proc(f"{base}/task/{tid}/schedstat").split()[:2]
                    except (OSError, ValueError):
                        continue  # a thread that just ended: its time is in the total
                    exact += int(ran)
                    if tid == str(self.pid):
                        waited = int(delay)
        except (OSError, ValueError, IndexError):
            return None
        return max(exact / 1e9, ticks * self._TICK), waited / 1e9

    def cpu(self) -> float:
        reading = self.read()
        return reading[0] if reading is not None else 0.0


def _read_proc(path: str) -> bytes:
    """A small /proc file in one read (cheaper than open(): calls read it twice each)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


class _Watch:
    """Times one call from outside and decides when it must stop."""

    POLL = 0.02  # seconds between two looks at a running call

    def __init__(self, clock: "ProcessClock", limit: float, limits: Limits,
                 interrupted=lambda: False) -> None:
        self.clock = clock
        self.interrupted = interrupted
        self.limit = limit
        self.grace = limits.grace
        self.started = time.monotonic()
        self.deadline = self.started + limits.backstop(limit)
        reading = clock.read() if clock.readable else None
        self.cpu0, self.wait0 = reading if reading is not None else (0.0, 0.0)
        self.measured = reading is not None
        self.last = (0.0, 0.0)

    def _sample(self) -> tuple[float, float]:
        wall = time.monotonic() - self.started
        reading = self.clock.read() if self.measured else None
        if reading is None:  # no /proc: wall time is all we know
            self.last = (self.last[0], wall)
            return self.last
        cpu, waited = reading
        cpu -= self.cpu0
        active = max(cpu, wall - (waited - self.wait0))
        self.last = (cpu, active)
        return self.last

    def check(self) -> float:
        """Raise _Late if the call must stop (KeyboardInterrupt if the run must); else the
        seconds until the next look."""
        if self.interrupted():
            raise KeyboardInterrupt
        cpu, active = self._sample()
        if cpu >= self.limit:
            raise _Late()
        if active >= self.limit + self.grace:
            # Not computing, so no machine load can explain it; without /proc, say nothing.
            raise _Late(waited=self.measured and cpu < self.limit * 0.9)
        if time.monotonic() >= self.deadline:
            raise _Late(backstop=True)
        return min(self.POLL, max(0.001, self.limit - cpu))

    def finish(self) -> tuple[float, float]:
        """The call's CPU and active seconds, read now (the worker is idle again)."""
        return self._sample()


class _Broken(Exception):
    """The worker died, closed its pipe, or sent something that is not a valid answer."""

    def __init__(self, reason: str, ended: bool = False) -> None:
        super().__init__(reason)
        self.ended = ended  # the answer pipe reached its end: the process is probably exiting


class _Capture:
    """Bounded output: keeps the first ``limit`` bytes, counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def clear(self) -> None:
        self.data.clear()
        self.dropped = 0

    def take(self) -> str:
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped:,} more bytes of output dropped]"
        self.clear()
        return text


class _Worker:
    """One child process and its three pipes: requests in, answers out, output out."""

    def __init__(self, proc: subprocess.Popen, requests: int, answers: int, output: int,
                 info: int | None, limit: int, tag: bytes, uid: int | None) -> None:
        self.proc = proc
        self.tag = tag
        self.uid = uid
        self.requests = requests
        self.answers = answers
        self.output_fd: int | None = output
        self.info = info
        self.init_pid: int | None = None
        self.clock = ProcessClock(proc.pid)   # the worker itself once find_pid has run
        self.output = _Capture(limit)
        self.buffer = bytearray()
        self.poll = select.poll()
        self.poll.register(answers, select.POLLIN)
        self.poll.register(output, select.POLLIN)
        self.stopped = False

    @classmethod
    def start(cls, box: Path, name: str, limits: Limits, bwrap: bool, uid: int | None,
              read_cap: bool) -> "_Worker":
        layout = _layout()
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        out_r, out_w = os.pipe()
        info_r, info_w = os.pipe() if bwrap else (None, None)
        inside = _BOX if bwrap else str(box)
        home = "/tmp" if bwrap else str(box / ".tmp")
        config = {"req": req_r, "ans": ans_w, "box": inside, "file": name,
                  "path": list(layout.sys_path), "uid": uid, "gid": uid, "read_cap": read_cap,
                  "landlock": _landlock_rules(layout, inside, home),
                  "rlimits": {"AS": limits.memory_bytes, "FSIZE": limits.file_bytes,
                              "NOFILE": limits.open_files, "NPROC": limits.processes,
                              "CORE": 0}}
        command = [layout.python, "-I", "-S", "-B", "-c", _BOOTSTRAP, str(_GRADER),
                   json.dumps(config)]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": home, "TMPDIR": home, "PYTHONDONTWRITEBYTECODE": "1"}
        passed = [req_r, ans_w]
        if bwrap:
            assert info_w is not None
            command = _bwrap_command(layout, box, limits, env, info_w) + command
            passed.append(info_w)
            env = {"PATH": env["PATH"]}
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out_w,
                                    stderr=out_w, env=env, cwd=box, close_fds=True,
                                    pass_fds=passed, start_new_session=True)
        except OSError as exc:
            for fd in (req_r, req_w, ans_r, ans_w, out_r, out_w, info_r, info_w):
                if fd is not None:
                    os.close(fd)
            raise SandboxError(f"cannot start {command[0]}: {exc}") from None
        for fd in passed + [out_w]:
            os.close(fd)
        for fd in (ans_r, out_r, req_w, info_r):
            if fd is not None:
                os.set_blocking(fd, False)
        return cls(proc, req_w, ans_r, out_r, info_r, limits.output_bytes,
                   f"HOME={home}".encode(), uid)

    def send(self, message: dict) -> None:
        data = (json.dumps(message) + "\n").encode()
        while data:
            try:
                data = data[os.write(self.requests, data):]
            except BlockingIOError:  # a big board: wait (briefly) for the worker to read
                writable = select.poll()
                writable.register(self.requests, select.POLLOUT)
                if not writable.poll(1000):
                    raise _Broken("stopped reading requests") from None
            except OSError as exc:
                raise _Broken(f"stopped reading requests ({exc.strerror})",
                              ended=True) from None

    def receive(self, token: str, deadline: float, check=None) -> dict:
        """The next answer line, which must carry ``token``; drains output meanwhile.

        ``check``, if given, is called at least every few hundredths of a second while
        waiting: it raises _Late to stop, or returns how long to wait before the next look.
        """
        pause = _Watch.POLL if check is not None else 0.1
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                try:
                    message = json.loads(line)
                except (ValueError, RecursionError):  # RecursionError: "[[[[...]]]]"
                    raise _Broken("sent garbage instead of an answer") from None
                if type(message) is not dict or message.get("tok") != token:
                    raise _Broken("sent an answer to a question it was not asked")
                self._drain(limit=16)
                return message
            if len(self.buffer) > _MAX_ANSWER:
                raise _Broken("sent an answer that is far too long")
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Late(backstop=check is not None)
            try:
                events = self.poll.poll(math.ceil(min(left, pause) * 1000))
            except InterruptedError:
                continue
            if not events and self.proc.poll() is not None:
                self._read_answers()
                if b"\n" not in self.buffer:
                    raise _Broken("ended", ended=True)
                continue
            if not events and check is not None:
                pause = check()  # a quiet moment: is the call still within its limit?
            for fd, _ in events:
                if fd == self.answers:
                    if not self._read_answers():
                        raise _Broken("ended", ended=True)
                elif fd == self.output_fd:
                    self._drain(limit=1)
                else:
                    raise _Broken("was closed")

    def _read_answers(self) -> bool:
        """Move what the answer pipe holds into the buffer; False at end of file."""
        try:
            chunk = os.read(self.answers, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        self.buffer += chunk
        return bool(chunk)

    def _drain(self, limit: int) -> None:
        """Read at most ``limit`` chunks of output: a flood must not starve the answers."""
        for _ in range(limit):
            if self.output_fd is None:
                return
            try:
                chunk = os.read(self.output_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:  # every writer closed it; the worker may still live
                self.poll.unregister(self.output_fd)
                os.close(self.output_fd)
                self.output_fd = None
                return
            self.output.add(chunk)

    def find_pid(self) -> None:
        """Learn the worker's own pid (under bubblewrap, the child of bubblewrap's init,
        whose death empties the pid namespace), so that its clock reads the right process."""
        if self.info is None:
            return
        try:
            data = os.read(self.info, 65536).decode()
            pid = json.JSONDecoder().raw_decode(data.lstrip())[0]["child-pid"]
        except (OSError, ValueError, KeyError, TypeError):
            return
        if type(pid) is int and _parent_of(pid) == self.proc.pid:
            self.init_pid = pid
            children = _children_of(pid)
            if len(children) == 1:  # the worker (it has sent its hello, so it exists)
                self.clock = ProcessClock(children[0])

    def stop(self, grace: float = 0.0) -> str:
        """Kill everything; return how the process ended if it ended by itself (waiting
        up to ``grace`` seconds for that). Ctrl-C and SIGTERM wait until it is done."""
        if self.stopped:
            return ""
        blocked = _block_interrupts()
        try:
            ended = self._kill_all(grace)
        finally:
            _unblock_interrupts(blocked)
        self.stopped = True
        self._drain(limit=16)
        for fd in (self.requests, self.answers, self.output_fd, self.info):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.output_fd = None
        return ended

    def _kill_all(self, grace: float) -> str:
        ended = ""
        try:
            ended = _describe_exit(self.proc.wait(timeout=grace), self.info is not None)
        except subprocess.TimeoutExpired:
            pass
        if self.init_pid is not None:
            # Killing the namespace's init kills every process in it; bubblewrap reaps it
            # and exits, so once proc.wait() returns nothing of the student's is left.
            _kill(self.init_pid, lambda pid: os.kill(pid, signal.SIGKILL))
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        cleared = self.init_pid is not None and self.proc.returncode is not None
        if not cleared:
            # Without a pid namespace: the process group (it outlives its leader while any
            # member lives), then whatever left the group: every process of the sandbox's
            # own uid, or (not root) whatever still carries our HOME in its environment.
            _kill(self.proc.pid, lambda pgid: os.killpg(pgid, signal.SIGKILL))
        self.proc.wait()
        if not cleared:
            if self.uid is not None:
                _kill_uid(self.uid)
            _kill_tagged(self.tag)  # in case the worker could not become its uid
        return ended


def _kill(pid: int, how) -> None:
    try:
        how(pid)
    except (ProcessLookupError, PermissionError):
        pass


def _block_interrupts() -> set[int] | None:
    """Hold SIGINT and SIGTERM back (they stay pending) while processes are being killed."""
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (OSError, ValueError):
        return None


def _unblock_interrupts(previous: set[int] | None) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid``, the sandbox's own, until none is left.

    A short-lived child of ours becomes that uid and calls kill(-1, SIGKILL), which the
    kernel sends, in one sweep, to exactly the processes that uid may signal: no fork can
    slip between a scan and a kill. Zombies do not count; their reaper ends them.
    """
    if uid == 0:
        raise ValueError("refusing to kill every process of root")
    for _ in range(20):
        pid = os.fork()
        if pid == 0:  # the child: syscalls only, then _exit
            code = 0
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                for _ in range(3):
                    os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except BaseException:
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if not _processes_of(uid) or os.waitstatus_to_exitcode(status) == 1:
            return
        time.sleep(0.01)


def _proc_status(pid: str) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return {}
    return dict(line.partition(":")[::2] for line in text.splitlines())


def _processes_of(uid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose real uid is ``uid``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            status = _proc_status(entry.name)
            uids = status.get("Uid", "").split()
            zombie = status.get("State", "").strip().startswith("Z")
            if uids and int(uids[0]) == uid and not zombie:
                found.append(int(entry.name))
    return found


def _pick_uid() -> int:
    """A uid of ``SANDBOX_UIDS`` that no process has now: the new sandbox's own."""
    used = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            uids = _proc_status(entry.name).get("Uid", "").split()
            used.update(int(u) for u in uids)
    while True:
        uid = SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]
        if uid not in used:
            return uid


def _kill_tagged(tag: bytes) -> None:
    """SIGKILL every process whose environment holds ``tag``: how the fallback finds what
    escaped the process group (a setsid daemon), unless it also replaced its environment."""
    needle = b"\0" + tag + b"\0"
    for _ in range(5):  # a few rounds: one may fork while we look
        found = False
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as file:
                    environ = b"\0" + file.read() + b"\0"
            except OSError:
                continue
            if needle in environ and int(entry.name) != os.getpid():
                _kill(int(entry.name), lambda pid: os.kill(pid, signal.SIGKILL))
                found = True
        if not found:
            return


def _children_of(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (one scan of /proc)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and _parent_of(int(entry.name)) == pid:
            found.append(int(entry.name))
    return found


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return int(file.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _describe_exit(code: int | None, bwrap: bool) -> str:
    if code is None:
        return ""
    if code < 0 or (bwrap and code > 128):
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        extra = " (out of memory?)" if name == "SIGKILL" else ""
        return f"was killed by {name}{extra}"
    return f"exited with status {code}"


class _Resources:
    """What a Sandbox owns outside Python: the worker and the private directory."""

    def __init__(self) -> None:
        self.worker: _Worker | None = None
        self.reference: _Worker | None = None   # never loads the submission
        self.box: Path | None = None
        self.owner = os.getpid()

    def release(self) -> None:
        if os.getpid() != self.owner:  # a forked copy of the grader must not kill our worker
            return
        for name in ("worker", "reference"):
            worker = getattr(self, name)
            setattr(self, name, None)
            if worker is not None:
                worker.stop()
        box, self.box = self.box, None
        if box is not None:
            shutil.rmtree(box, ignore_errors=True)


# -- the machine -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Layout:
    python: str                    # the real interpreter, not a venv or pyenv shim
    prefixes: tuple[str, ...]      # the Python installation, bound read-only
    sys_path: tuple[str, ...]      # what the worker puts on sys.path: shims, provided's parent
    binds: tuple[str, ...]         # files and folders of the project the worker needs


@functools.lru_cache(maxsize=None)
def _layout() -> _Layout:
    python = os.path.realpath(sys.executable)
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    if not any(python.startswith(p + os.sep) for p in prefixes):
        prefixes.add(os.path.dirname(python))
    package = Path(provided.__file__).resolve().parent
    binds = [str(package), str(_WORKER), str(_SHIMS)]
    for source in [_WORKER, *_SHIMS.glob("*.py")]:
        # The worker and the shims are imported at every start: keep them compiled.
        compiled = cache_from_source(str(source))
        if not _fresh(source, compiled):
            try:
                py_compile.compile(str(source), compiled, doraise=True)
            except (OSError, py_compile.PyCompileError):
                continue
        if source == _WORKER:
            binds.append(compiled)
    return _Layout(python, tuple(sorted(prefixes)), (str(_SHIMS), str(package.parent)),
                   tuple(binds))


def _fresh(source: Path, compiled: str) -> bool:
    """Whether the timestamp-checked .pyc of ``source`` is up to date."""
    try:
        info = source.stat()
        with open(compiled, "rb") as file:
            header = file.read(16)
    except OSError:
        return False
    return (header[:4] == MAGIC_NUMBER and header[4:8] == bytes(4)
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF)


def _within(path: str, folders: list[str] | tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _bwrap_command(layout: _Layout, box: Path, limits: Limits, env: dict[str, str],
                   info_fd: int) -> list[str]:
    """bubblewrap's arguments: only what the worker needs, read-only, in new namespaces."""
    root = os.geteuid() == 0
    command = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session"]
    if root:  # no user namespace: the worker drops to its uid itself, a real uid outside too
        command += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                    "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                    "--cap-add", "CAP_SETGID"]
    else:
        command += ["--unshare-all"]
    bound: list[str] = []
    for folder in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(folder):
            command += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            command += ["--ro-bind", folder, folder]
            bound.append(folder)
    for file in ("/etc/ld.so.cache", "/etc/localtime"):
        command += ["--ro-bind-try", file, file]
    # The private /tmp first: a project or a Python that lives under /tmp is bound on top.
    command += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777",
                "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    extra = [p for p in (*layout.prefixes, *layout.binds) if not _within(p, bound)]
    parents = sorted({str(parent) for p in extra for parent in Path(p).parents
                      if str(parent) not in ("/", "/tmp") and not _within(str(parent), bound)},
                     key=lambda p: p.count("/"))
    for parent in parents:  # bubblewrap would make them 0700, closed to the sandbox's uid
        command += ["--perms", "0755", "--dir", parent]
    for path in extra:
        command += ["--ro-bind", path, path]
    command += ["--ro-bind", str(box), _BOX, "--chdir", _BOX, "--clearenv"]
    for key, value in env.items():
        command += ["--setenv", key, value]
    return command + ["--info-fd", str(info_fd), "--"]


@functools.lru_cache(maxsize=None)
def _bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or None if it can (tried once per process)."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed"
    layout = _layout()
    box = Path(tempfile.mkdtemp(prefix="ttt-sandbox-probe-"))
    try:
        box.chmod(0o755)
        read, write = os.pipe()
        uid = SANDBOX_UIDS[0]
        drop = (f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
                if os.geteuid() == 0 else "")
        command = _bwrap_command(layout, box, Limits(), {"PATH": "/usr/bin:/bin"}, write)
        command += [layout.python, "-I", "-S", "-B", "-c", drop + "import json"]
        try:
            result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                    pass_fds=[write], timeout=20, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap failed to run: {exc}"
        finally:
            os.close(read)
            os.close(write)
        if result.returncode != 0:
            return (f"bwrap failed (status {result.returncode}): "
                    + result.stderr.decode(errors="replace").strip())
        return None
    finally:
        shutil.rmtree(box, ignore_errors=True)


def bwrap_available() -> bool:
    """Whether bubblewrap is installed and works here; probed once per process.

    >>> isinstance(bwrap_available(), bool)
    True
    """
    return _bwrap_problem() is None


def _want_bwrap(use_bwrap: bool | None) -> bool:
    if use_bwrap is None:
        if os.environ.get("TTT_GRADER_NO_BWRAP", "") not in ("", "0"):
            return False
        return bwrap_available()
    if use_bwrap and not bwrap_available():
        raise SandboxError(f"bubblewrap was asked for but cannot be used: {_bwrap_problem()}")
    return use_bwrap


def _others_can_read(box: Path) -> bool:
    """Whether any uid can reach the interpreter, the stdlib, provided, the shims and the
    box, so the fallback (no bubblewrap) can drop to the sandbox's uid and no more."""
    layout = _layout()
    return _open_to_others.__wrapped__(box) and all(
        _open_to_others(Path(p)) for p in (layout.python, *layout.prefixes, *layout.binds))


@functools.lru_cache(maxsize=None)
def _open_to_others(path: Path) -> bool:
    try:
        for folder in path.parents:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        return bool(path.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/dev/urandom", "/dev/zero")


def _landlock_rules(layout: _Layout, box: str, scratch: str) -> dict[str, list[str]]:
    """What the worker may read and write under Landlock, as paths it sees."""
    read = [*_SYSTEM, *_SYSTEM_FILES, *layout.prefixes, *layout.binds, box]
    return {"read": read, "write": [scratch, "/dev/null"]}


def _describe_layers(hello: dict, bwrap: bool, limits: Limits) -> tuple[str, ...]:
    """The isolation actually in force, from what the worker reported about itself."""
    uid = hello.get("uid")
    own_uid = type(uid) is int and uid in SANDBOX_UIDS
    stragglers = "" if bwrap else (" (stragglers found by their uid)" if own_uid
                                   else " (stragglers found by their environment)")
    layers = ["separate process", "own session and process group" + stragglers,
              "scrubbed environment",
              "python -I -S", "private working directory"]
    applied = hello.get("rlimits")
    if type(applied) is list and applied:
        names = {"AS": f"memory {limits.memory_bytes >> 20} MiB",
                 "FSIZE": f"files {limits.file_bytes >> 20} MiB",
                 "NOFILE": f"{limits.open_files} open files",
                 "NPROC": f"{limits.processes} processes", "CORE": "no core dumps"}
        layers.append("rlimits (" + ", ".join(names.get(str(a), str(a)) for a in applied)
                      + ")")
    if hello.get("nnp") is True:
        layers.append("no new privileges")
    if own_uid:
        layers.append(f"uid {uid} (its own" + (", reads past file permissions: "
                      "CAP_DAC_READ_SEARCH" if hello.get("read_cap") is True else "") + ")")
    elif uid == 0:
        layers.append("uid 0 (root: " + _string(hello.get("uid_error")) + ")"
                      if hello.get("uid_error") else "uid 0 (root)")
    else:
        layers.append(f"uid {uid} (the grader's own)")
    abi = hello.get("landlock")
    if type(abi) is int and abi > 0:
        limited = ["reads only Python, provided and its box", "writes only its scratch "
                   "directory"] + (["no TCP"] if abi >= 4 else []) \
            + (["signals only within the sandbox"] if abi >= 6 else [])
        layers.append(f"landlock v{abi} (" + ", ".join(limited) + ")")
    if bwrap:
        layers.append("bubblewrap: read-only system, no network, private /tmp")
        layers.append("pid namespace")
    return tuple(layers)

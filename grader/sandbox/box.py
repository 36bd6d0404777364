"""The student's process: start it, limit it, talk to it, kill it, restart it.

The grader never imports student code. A :class:`Sandbox` runs
:mod:`grader.sandbox.inside.worker` in a
child process that imports the submission; the parent sends positions and gets back only
answers, over a private pipe, as JSON, each echoing a fresh random token. One bad call
(exception, timeout, crash, garbage) costs that call: the worker is restarted before the next.

>>> from grader.judge.position import Position
>>> with Sandbox(Path("tests/submissions/sandbox/legacy.py")) as box:  # doctest: +SKIP
...     box.call("mm_move", Position.empty(2), cpu_limit=1.0)
Reply(status='ok', answer=(1, (0, 0)), cpu_seconds=0.0004, board_after=(1, 1, 1, 1), ...)

Layers, each one on whenever this machine allows it (``Sandbox.isolation`` says which were):

- a separate process in its own session and process group, stdin from /dev/null, a scrubbed
  environment, ``python -I -S``, a private working directory holding only a copy of the file
  (and of its helper modules, when given: ``grader.sandbox.helpers``);
- rlimits set by the worker before the submission is read: address space, file size, open
  files, processes, no core dumps; no new privileges (setuid binaries give nothing);
- as root, a uid of its own: the worker becomes a uid (and gid) that no other process uses,
  drawn from ``SANDBOX_UIDS``, so its process limit is its own, it cannot signal or trace
  the grader or another sandbox, and the fallback finds every process it started by that
  uid. It holds no capability, except where that uid could not read the Python
  installation (under /root, say) and Landlock confines what it reads: then it keeps one,
  CAP_DAC_READ_SEARCH. Without Landlock or bubblewrap, file permissions are all that keeps
  it from the grader's files: the grader refuses to start it unless they do
  (``layers.fallback_rights``);
- every process it starts stays below the worker's supervisor (a child subreaper) or
  bubblewrap's init, is ended when its call ends, and its CPU time is the call's, counted
  in a cgroup of its own where one can be had (``family``);
- Landlock when the kernel has it: reads only beneath the system, the Python installation,
  ``provided``, the worker and the box; writes only to its scratch directory;
  no TCP (ABI 4+); no signal to any process outside the sandbox (ABI 6+);
- bubblewrap when it is installed and works (``TTT_GRADER_NO_BWRAP=1`` or ``use_bwrap=False``
  turns it off): only the system, the Python installation, ``provided`` (with the course's
  modules) and the worker are visible, read-only; a private /tmp of 64 MiB; no network; a
  pid namespace. Without it, the scratch folder is watched: 64 MiB (``disk``).

What stays weaker (tests/sandbox/test_hostile.py and test_confinement.py check the rest):

- without Landlock, the fallback confines neither the network nor writes to world-writable
  places such as /tmp (but for one file's 16 MiB); with it, UDP and path-named unix sockets
  (subject to their file permissions) stay reachable;
- not run as root, the fallback runs the student as the grader's own uid: stragglers are
  found by their environment only, and without Landlock ABI 6 the student could signal the
  grader's other processes;
- the board after a call is reported by the worker, inside the student's process, so a
  determined submission can forge it. An answer can only ever be forged into another
  answer: the grader judges it. Time is not forgeable: the parent reads the CPU time from
  /proc or the cgroup, not from the worker.

Time: :meth:`Sandbox.call` stops a call as soon as the worker has used its CPU limit, or
has been *active* (on a CPU, or sleeping, or blocked: anything but waiting for a CPU that
other processes hold) for the limit plus ``Limits.grace``; a busy machine slows a call
down without moving it closer to its limit. :meth:`Sandbox.call_batch` makes several
calls in one round trip, timed and stopped as one: each of them used at most the whole.
The first worker times the reference search (``grader.timing.policy``) from outside, before
the submission is loaded; :meth:`Sandbox.calibrate` times it again, now, and
:meth:`Sandbox.reference_seconds` times it on any position, in a *reference worker*: a
second worker on the same CPU, started when first needed, that never loads the submission
(student code could slow the reference down from inside its own process). The latest
calibration is ``Sandbox.calibration``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
import weakref
from pathlib import Path

from grader.judge.position import Position
from grader.sandbox.clock import Late, Watch
from grader.sandbox.cpu import lend, pick_cpu, pin
from grader.sandbox.disk import Overflow, Scratch, make_box, safe_name
from grader.sandbox.errors import SandboxError
from grader.sandbox.layers import (INSIDE, Rights, describe_layers, fallback_rights,
                                   stage_inside, unconfined, want_bwrap)
from grader.sandbox.limits import Limits
from grader.sandbox.process import Worker, tail
from grader.sandbox.protocol import (FUNCTIONS, Broken, Reply, batch_request, call_request,
                                     decode, invoke_request, reference_request,
                                     replies_from_batch, reply_from, reply_from_invoke)
from grader.sandbox.submission import LoadError, course_imports, load_error, read_submission
from grader.sandbox.uids import pick_uid
from grader.timing.policy import (REFERENCE_3X3, REFERENCE_4X4, REFERENCE_4X4_RUNS,
                                  REFERENCE_RUNS, Calibration, TimingError)


class Sandbox:
    """One submission's worker process. A context manager; ``close()`` may be called twice.

    >>> box = Sandbox(Path("mm_player.py"), Limits(memory_bytes=512 << 20))
    >>> box.start()  # doctest: +SKIP
    >>> box.call("move_wrapper", Position.empty(3), cpu_limit=2.0, trials=1)  # doctest: +SKIP
    Reply(status='ok', answer=(1, 1), cpu_seconds=0.41, board_after=(1, 1, 1, 1, ...), ...)
    >>> box.close()
    """

    def __init__(self, submission: Path, limits: Limits = Limits(), *,
                 use_bwrap: bool | None = None, require: tuple[str, ...] = ("mm_move",),
                 constants: tuple[str, ...] = (), private: tuple[Path, ...] = (),
                 helpers: tuple[tuple[str, bytes], ...] = ()) -> None:
        self.submission = Path(submission)
        self.helpers = tuple(helpers)  # modules copied beside it (grader.sandbox.helpers)
        self.limits = limits
        self.use_bwrap = use_bwrap
        # What the student's code must not read besides the grader's own folder and the
        # submission's (other students'): checked where file permissions are all that
        # stands in the way (no bubblewrap, no Landlock).
        self.private = tuple(Path(p) for p in private)
        self.require = tuple(require)        # functions the file must define to be loaded
        self.wanted_constants = tuple(constants)   # module values read after the import
        self.constants: dict[str, object] = {}     # those the file defines, decoded
        self.isolation: tuple[str, ...] = ()
        self.restarts = 0
        self.load_output = ""
        self.import_calls: tuple[str, ...] = ()   # "play_game"/"run_gui" skipped at import
        self.course_imports: tuple[str, ...] = ()  # "poc_ttt_provided", ...: for the report
        self.calibration: Calibration | None = None  # the reference, timed in this sandbox
        self.calibrations = 0                        # how many times it was timed
        self.reference_timings = 0         # reference searches timed: the grader's own cost
        self.reference_seconds_total = 0.0           # their CPU seconds
        self.first_calibration_seconds = 0.0         # of which the first calibration's
        self._interrupted = False
        self._resources = _Resources()
        self._finalizer = weakref.finalize(self, self._resources.release)
        self._started = False
        self._closed = False
        self._bwrap = False
        self._uid: int | None = None    # the sandbox's own uid (root only)
        self._reference_uid: int | None = None   # the reference worker's: another one
        self._cpu: int | None = None    # the one CPU its workers run on (grader.sandbox.cpu)
        self._rights = Rights()         # what a worker run as root keeps (no bubblewrap)
        self._inside = INSIDE           # the worker's own code (copied into the box: Rights)
        self._scratch: Scratch | None = None   # its disk, watched (no bubblewrap)
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

    @property
    def cpu(self) -> int | None:
        """The CPU its workers are pinned to (None: not pinned; see grader.sandbox.cpu)."""
        return self._cpu

    def start(self) -> None:
        """Start the worker and import the submission. Raises LoadError or SandboxError."""
        if self._closed:
            raise SandboxError("this sandbox is closed")
        if self._started:
            return
        try:
            source, text = read_submission(self.submission)
            self._lines = text.splitlines()
            self.course_imports = course_imports(text)
            self._bwrap = want_bwrap(self.use_bwrap)
            self._name = safe_name(self.submission.name)
            self._uid = pick_uid() if os.geteuid() == 0 else None
            self._cpu = pick_cpu()
            box = self._resources.box = make_box(self._name, source, self._uid,
                                                 self.helpers)
            if not self._bwrap:
                if self._uid is not None:
                    self._rights = fallback_rights(box, self._must_stay_private())
                    if self._rights.stage:
                        self._inside = stage_inside(box)
                self._scratch = Scratch(box / ".tmp", self.limits)
            self._spawn()
        except BaseException:
            self.close()
            raise
        self._started = True

    def _must_stay_private(self) -> tuple[Path, ...]:
        """The grader's folder (its hidden checks, its answer key), the submission's (other
        students' files, a course's folder) and the caller's ``private``."""
        return (Path(__file__).resolve().parents[1], self.submission.resolve().parent,
                *self.private)

    def close(self) -> None:
        """Kill the worker and everything it started; remove the private directory."""
        self._closed = True
        self._resources.release()

    def interrupt(self) -> None:
        """Ask the call in progress (or the next one) to stop: it raises KeyboardInterrupt.

        Safe from a signal handler: it only sets a flag that calls look at between polls."""
        self._interrupted = True

    def ready(self) -> str | None:
        """Make sure a worker is running (restarting it after a timeout or a crash).
        None, or why it could not restart."""
        self._open()
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
        before the next call.
        """
        if function not in FUNCTIONS:
            raise ValueError(f"function must be one of {FUNCTIONS}, got {function!r}")
        return self._timed(function, call_request(function, position, trials), cpu_limit,
                           lambda message, output, cpu, active:
                           reply_from(message, position, output, cpu, active))

    def invoke(self, function: str, args: list[dict], cpu_limit: float, seed: int) -> Reply:
        """Call any function of the submission by name, timed and stopped as ``call`` is.

        ``args`` are tagged (``grader.sandbox.protocol.invoke_request``): the worker builds
        each afresh, seeds ``random`` with ``seed``, makes the call, and answers with the
        value and what the call left in each argument (``Reply.after``).

        >>> box.invoke("mc_trial", [{"board": [3, [1] * 9, False]}, {"value": 2}],
        ...            cpu_limit=1.0, seed=7)  # doctest: +SKIP
        Reply(status='ok', answer=None, ..., after=((2, 3, 2, ...), None))
        """
        return self._timed(function, invoke_request(function, args, seed), cpu_limit,
                           lambda message, output, cpu, active:
                           reply_from_invoke(message, args, output, cpu, active))

    def _timed(self, function: str, request: dict, cpu_limit: float, read) -> Reply:
        """One request answered by one call's answer (``read`` turns it into a Reply),
        timed from outside and stopped at ``cpu_limit``."""
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
        watch = Watch(worker.clock, cpu_limit, self.limits, lambda: self._interrupted)
        try:
            worker.send(dict(request, tok=token))
            message = worker.receive(token, watch.deadline, self._checker(watch.check))
            cpu, active = watch.finish(answered=not self._after_call(worker))
            reply = read(message, worker.output.take(), cpu, active)
        except Late as late:
            cpu, active = watch.finish()
            self._stop_worker()
            if late.waited:   # it sleeps rather than computes: its CPU may serve another grade
                lend()
            return Reply("timeout", None, max(cpu, 0.0), None, worker.output.take(),
                         late.describe(function, cpu_limit, cpu, active), active,
                         late.waited)
        except Broken as exc:
            return self._crash(worker, exc)
        except BaseException:
            self._stop_worker()  # a KeyboardInterrupt mid-call leaves the protocol unknown
            raise
        return reply

    def call_batch(self, function: str, positions: list[Position],
                   cpu_limit: float) -> list[Reply] | None:
        """Call ``function`` on each of ``positions`` in turn, in one round trip; a Reply
        per position, or None if the batch as a whole gave no usable answer.

        The batch is timed from outside as a whole, and stopped when it has used
        ``cpu_limit`` seconds of CPU time (or been active for that plus the grace): so each
        of its calls used at most that. It is for calls on small positions, where a
        correct search takes a sliver of its limit. When it gives no answer (stopped,
        crashed, or garbage) the worker is restarted at once, and not counted in
        ``restarts`` (the batch was the grader's choice): the caller then asks each position
        on its own, with its own limit, as ``call`` does; none of them has a verdict yet.
        """
        if function not in FUNCTIONS:
            raise ValueError(f"function must be one of {FUNCTIONS}, got {function!r}")
        if not positions or not cpu_limit > 0:
            raise ValueError("a batch needs positions and a positive cpu_limit")
        if self._interrupted:
            raise KeyboardInterrupt
        self._open()
        worker = self._resources.worker
        if worker is None:   # to be restarted: a restart is the next call's (see ready)
            return None
        token = secrets.token_hex(8)
        worker.output.clear()
        watch = Watch(worker.clock, cpu_limit, self.limits, lambda: self._interrupted)
        try:
            worker.send(dict(batch_request(function, positions, 1), tok=token))
            message = worker.receive(token, watch.deadline, self._checker(watch.check))
            cpu, active = watch.finish(answered=not self._after_call(worker))
            if cpu > cpu_limit:   # answered between two looks: no call of it is vouched for
                raise Late()
            return replies_from_batch(message, positions, worker.output.take(), cpu, active)
        except (Late, Broken) as exc:
            self._stop_worker()
            if isinstance(exc, Overflow) and self._scratch is not None:
                self._scratch.empty()
            try:
                self._spawn()
            except (LoadError, SandboxError):
                pass   # the next call's ready() tries again, and says why it cannot
            return None
        except BaseException:
            self._stop_worker()  # a KeyboardInterrupt mid-call leaves the protocol unknown
            raise

    def calibrate(self) -> Calibration:
        """Time the reference again, now, in the reference worker (started if need be)."""
        if self._open():   # just started: the first worker has timed it
            assert self.calibration is not None
            return self.calibration
        self._in_reference_worker(self._time_reference)
        assert self.calibration is not None
        return self.calibration

    def reference_seconds(self, position: Position, wall: float = 0.0) -> float:
        """The reference's CPU time for a search of ``position``, timed now, from outside,
        in the reference worker (on the student's CPU; it never loads the submission).
        It may take ``wall`` seconds (at least ``Limits.load_seconds``)."""
        self._open()
        return self._in_reference_worker(lambda worker: self._time(worker, position, wall))

    def _in_reference_worker(self, job):
        """``job(worker)`` in the reference worker, started (and pinned) if need be.

        A reference worker found dead (it should not be: it runs as a uid of its own) is
        started again, once."""
        for attempt in (1, 2):
            worker = self._resources.reference
            try:
                if worker is None:
                    worker = self._resources.reference = self._start_worker(reference=True)
                    self._boot(worker)
                elif worker.proc.poll() is not None:
                    raise Broken("ended")
                return job(worker)
            except (Late, Broken, TimingError, SandboxError) as exc:
                if self._resources.reference is not None:
                    self._resources.reference.stop()
                    self._resources.reference = None
                if attempt == 2 or not isinstance(exc, Broken):
                    raise SandboxError(f"the reference worker failed: {exc}") from None
        raise AssertionError("unreachable")

    # -- internals -----------------------------------------------------------------------

    def _checker(self, check):
        """``check`` (whether the call must stop, how long until the next look), and a
        look at the scratch folder (without bubblewrap: Overflow past its limit)."""
        scratch = self._scratch
        if scratch is None:
            return check

        def and_disk() -> float:
            pause = check()
            scratch.check()
            return pause
        return and_disk

    def _after_call(self, worker: "Worker") -> bool:
        """When a call (or the import) ends: end every process it started, and look at
        the scratch folder (Overflow). Whether any process had to be ended (its time then
        reaches the worker's count a moment later: the next call reads its own start)."""
        ended = worker.end_others()
        if self._scratch is not None:
            self._scratch.check()
        return ended

    def _open(self) -> bool:
        """Refuse a closed sandbox; start it if need be. Whether it was started just now."""
        if self._closed:
            raise SandboxError("this sandbox is closed")
        if self._started:
            return False
        self.start()
        return True

    def _boot(self, worker: "Worker") -> dict:
        """A new worker's first request, answered by its hello (returned), then pinned to
        the sandbox's CPU before anything is timed. The untimed reference search of the
        empty 2x2 board also warms the interpreter up for the timed ones."""
        hello = self._ask(worker, reference_request(Position.empty(2)), first=True)
        worker.find_pid()
        pin(worker.clock.pid, self._cpu)
        return hello

    def _start_worker(self, reference: bool = False) -> "Worker":
        """A worker as the sandbox's uid; the reference worker as a uid of its own, so that
        killing every process of one worker's uid (the fallback's last sweep) never kills
        the other: the student's worker killed with the reference's would be reported as
        a crash of the student's next call, on the runs where that sweep happened."""
        box = self._resources.box
        assert box is not None
        uid = self._uid
        if reference and uid is not None:
            while self._reference_uid in (None, self._uid):
                self._reference_uid = pick_uid()
            uid = self._reference_uid
        worker = Worker.start(box, self._name, self.limits, self._bwrap, uid,
                              self._rights.read_cap, self._inside)
        worker.untrusted = not reference   # it never loads the submission: nothing to sweep
        return worker

    def _spawn(self) -> None:
        """Start a worker and load the submission into it; raise LoadError on failure."""
        worker = self._start_worker()
        self._resources.worker = worker
        calibrate = self.calibration is None  # the first worker, before any student code
        try:
            hello = self._boot(worker)
            problem = unconfined(hello, self._bwrap, self._rights)
            if problem:
                self._stop_worker()
                raise SandboxError(problem)
            if calibrate:
                self._time_reference(worker)
            counted = worker.count_family()   # from here on, student code may run
            if not self.isolation:
                self.isolation = describe_layers(hello, self._bwrap, self.limits, counted,
                                                 scratch=self._scratch is not None)
        except (Late, Broken, TimingError) as exc:  # no student code has run yet: our problem
            status = self._stop_worker(grace=0.5)
            why = (f"did not start within {self.limits.load_seconds:g} s"
                   if isinstance(exc, Late) else f"{status or exc} before it was ready")
            raise SandboxError(f"the worker {why}: {worker.output.take().strip()}") from None
        token = secrets.token_hex(8)
        deadline = time.monotonic() + self.limits.load_seconds
        worker.send({"tok": token, "op": "load", "require": list(self.require),
                     "constants": list(self.wanted_constants)})
        try:
            message = worker.receive(token, deadline, self._load_check(worker))
            self._after_call(worker)
        except Overflow as exc:
            self._stop_worker()
            if self._scratch is not None:
                self._scratch.empty()
            raise LoadError("exit", f"while the submission was being imported, the worker "
                            f"{exc}; the top level of the file should only define "
                            "functions") from None
        except Late:
            self._stop_worker()
            raise LoadError("timeout", f"importing the submission took more than "
                            f"{self.limits.load_seconds:g} s; the top level of the file "
                            "should only define functions (does it play a game or run a "
                            "search when it is imported?)") from None
        except Broken as exc:
            status = self._stop_worker(grace=0.5)
            output = worker.output.take()
            raise LoadError("exit", f"the submission stopped Python while it was being "
                            f"imported ({status or exc}); remove any os._exit() or other "
                            f"code that ends the program at the top level"
                            + tail(output)) from None
        load_output = worker.output.take()
        if not self.restarts:
            self.load_output = load_output
        if message.get("status") == "loaded":
            calls = message.get("calls")
            self.import_calls = tuple(str(c) for c in calls) if type(calls) is list else ()
            found = message.get("constants")
            self.constants = {}
            for name in self.wanted_constants:
                if type(found) is dict and name in found:
                    try:
                        self.constants[name] = decode(found[name])
                    except Broken:
                        pass   # garbage for a constant: read as not defined
            return
        self._stop_worker()
        if message.get("status") == "load_error":
            raise load_error(message, self._lines)
        raise LoadError("exit", "the worker sent an unexpected answer while importing the "
                        "submission")

    def _load_check(self, worker: "Worker"):
        """While the submission is imported: Late once it (with every process it started)
        has used ``Limits.load_seconds`` of CPU time; Overflow past the disk limit."""
        start = worker.clock.cpu()

        def check() -> float:
            if worker.clock.cpu() - start > self.limits.load_seconds:
                raise Late()
            if self._scratch is not None:
                self._scratch.check()
            return Watch.POLL
        return check

    def _ask(self, worker: "Worker", request: dict, first: bool = False,
             wall: float = 0.0) -> dict:
        """One request before the submission is loaded; with ``first``, return the hello."""
        token = secrets.token_hex(8)
        deadline = time.monotonic() + max(wall, self.limits.load_seconds)
        worker.send(dict(request, tok=token))
        hello = worker.receive(token, deadline) if first else {}
        answer = worker.receive(token, deadline)
        if answer.get("status") != "ref":
            raise Broken("did not run the reference search")
        return hello

    def _time_reference(self, worker: "Worker") -> None:
        """Time the reference search in this worker, from outside, before any student code.

        The 3x3 and 4x4 searches alternate, so that a change in the machine's speed while
        they run hits both alike; the median of each counts (REFERENCE_RUNS of the 3x3,
        REFERENCE_4X4_RUNS of the 4x4).
        """
        runs_3x3: list[float] = []
        runs_4x4: list[float] = []
        for run in range(REFERENCE_RUNS):
            runs_3x3.append(self._time(worker, REFERENCE_3X3))
            if run < REFERENCE_4X4_RUNS:
                runs_4x4.append(self._time(worker, REFERENCE_4X4))
        self.calibration = Calibration.from_runs(runs_3x3, runs_4x4)
        if not self.calibrations:
            self.first_calibration_seconds = sum(runs_3x3) + sum(runs_4x4)
        self.calibrations += 1

    def _time(self, worker: "Worker", position: Position, wall: float = 0.0) -> float:
        """The CPU seconds of one reference search in ``worker``, read from outside."""
        before = worker.clock.cpu()
        self._ask(worker, reference_request(position), wall=wall)
        seconds = worker.clock.cpu() - before
        self.reference_timings += 1
        self.reference_seconds_total += seconds
        return seconds

    def _crash(self, worker: "Worker", broken: Broken) -> Reply:
        if self._closed:
            return Reply("crash", None, 0.0, None, "", "the sandbox was closed during the call")
        status = self._stop_worker(grace=0.5 if broken.ended else 0.0)
        if isinstance(broken, Overflow) and self._scratch is not None:
            self._scratch.empty()   # the next worker starts with the whole limit
        output = worker.output.take()
        return Reply("crash", None, 0.0, None, output,
                     f"the worker process {status or broken}" + tail(output))

    def _stop_worker(self, grace: float = 0.0) -> str:
        """Kill the current worker; describe how it ended if it ended by itself."""
        worker, self._resources.worker = self._resources.worker, None
        return worker.stop(grace) if worker is not None else ""


class _Resources:
    """What a Sandbox owns outside Python: the worker and the private directory."""

    def __init__(self) -> None:
        self.worker: Worker | None = None
        self.reference: Worker | None = None   # never loads the submission
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

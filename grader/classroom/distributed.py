"""The batch on a Dask cluster: one task per submission, each in its worker's own sandbox.

    python -m grader batch class.zip --out grades --scheduler tcp://10.0.0.5:8786

Workers need not share a filesystem with this machine: a task carries the
submission's bytes (with the .py files beside it in a student's own folder, its
helpers' candidates; and the configuration and extra checks, when given),
writes them into a temporary folder on its worker, runs the same
``python -m grader grade`` subprocess there (see :func:`grader.classroom.run.run_grade`)
and returns what it wrote. The results land in the output folder here, with
the batch's usual resume rules. Every worker needs this project installed, the
same version (``pip install 'ttt-minimax[dask]'``); one worker per machine
with one thread per core (``dask worker ADDRESS --nthreads N``) fits best,
since each task's work happens in its own subprocess.

    runner = DaskRunner("tcp://10.0.0.5:8786")
    outcome = batch.run_batch(submissions, batch.BatchOptions(out=Path("grades")), runner)

Dask is imported only here, and only when a runner is made.
"""

from __future__ import annotations

import concurrent.futures
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.classroom.run import Attempt, GradingOptions, Job, run_grade

INSTALL_HINT = "pip install 'ttt-minimax[dask]'"
STOP_POLL_SECONDS = 2.0          # how often a running task asks whether the batch stopped
MAX_SHIPPED_BYTES = 20 * 1024 * 1024


class DaskMissingError(ImportError):
    """dask.distributed is not installed here."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise DaskMissingError(f"grading on a Dask cluster needs dask.distributed: "
                               f"{INSTALL_HINT}") from None
    return distributed


@dataclass(frozen=True)
class Payload:
    """Everything a task needs, as bytes: no path of this machine travels.

    ``files`` maps relative paths (``submission/NAME.py``, ``config.cfg``,
    ``checks/0/...``) to their content; ``options`` names the shipped
    configuration and checks by those relative paths.
    """

    student_id: str
    submission: str                   # relative path of the submission in ``files``
    files: tuple[tuple[str, bytes], ...]
    options: GradingOptions
    timeout: float | None
    stop_event: str | None = None     # the name of the batch's distributed.Event
    student_name: str = ""            # for the report's header (grade --student-name)
    nice: int = 0                     # a lower CPU priority (grader.classroom.priority)
    helpers: bool = False             # graded with the modules beside it (its own folder's)


def payload_for(job: Job, stop_event: str | None = None) -> Payload:
    """Pack a batch job: the submission's bytes, the configuration's and the checks'.

    >>> import tempfile
    >>> from grader.classroom.discover import Submission
    >>> path = Path(tempfile.mkdtemp()) / "alice.py"
    >>> _ = path.write_text("x = 1\\n")
    >>> payload = payload_for(Job(Submission("alice", path), GradingOptions(), Path("s")))
    >>> payload.submission, payload.files
    ('submission/alice.py', (('submission/alice.py', b'x = 1\\n'),))
    """
    submission = job.submission
    if submission.path is None:
        raise ValueError(f"{submission.student_id}: nothing to grade ({submission.problem})")
    name = f"submission/{submission.path.name}"
    files: list[tuple[str, bytes]] = [(name, submission.path.read_bytes())]
    if submission.own_folder:   # the .py files beside it: the task's grade chooses, as here
        files += [(f"submission/{path.name}", path.read_bytes())
                  for path in sorted(submission.path.parent.glob("*.py"))
                  if path != submission.path and path.is_file() and not path.is_symlink()]
    options = job.options
    if options.config is not None:
        files.append(("config.cfg", Path(options.config).read_bytes()))
        options = replace(options, config=Path("config.cfg"))
    checks = []
    for index, check in enumerate(job.options.checks):
        check = Path(check)
        base = f"checks/{index}"
        if check.is_dir():
            for path in sorted(check.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    files.append((f"{base}/{check.name}/{path.relative_to(check).as_posix()}",
                                  path.read_bytes()))
        else:
            files.append((f"{base}/{check.name}", check.read_bytes()))
        checks.append(Path(base) / check.name)
    options = replace(options, checks=tuple(checks))
    if sum(len(data) for _, data in files) > MAX_SHIPPED_BYTES:
        raise ValueError(f"{submission.student_id}: more than {MAX_SHIPPED_BYTES} bytes to ship")
    return Payload(submission.student_id, name, tuple(files), options, job.timeout, stop_event,
                   job.student_name, job.nice, submission.own_folder)


def grade_remote(payload: Payload) -> Attempt:
    """The task: unpack ``payload`` in a temporary folder and grade it there.

    Runs on a Dask worker (or anywhere: it needs only this project installed).
    Polls the batch's stop event, so an interrupted batch stops its grading runs.
    """
    with tempfile.TemporaryDirectory(prefix="ttt-grade-") as folder:
        root = Path(folder)
        for relative, data in payload.files:
            target = root / relative
            if root not in target.resolve().parents:
                raise ValueError(f"refusing to write {relative!r} outside the task's folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        options = payload.options
        if options.config is not None:
            options = replace(options, config=root / options.config)
        options = replace(options, checks=tuple(root / check for check in options.checks))
        should_stop = _stop_checker(payload.stop_event)
        if should_stop():                 # the batch stopped before this task started
            return Attempt(payload.student_id, None, None, stopped=True)
        return run_grade(root / payload.submission, payload.student_id, options,
                         root / "scratch", payload.timeout, should_stop,
                         student_name=payload.student_name, nice=payload.nice,
                         helpers=payload.helpers)


def _stop_checker(name: str | None) -> Any:
    if name is None:
        return lambda: False
    distributed = _distributed()
    event = distributed.Event(name)
    last = [float("-inf")]          # the first call asks at once

    def should_stop() -> bool:
        now = time.monotonic()
        if now - last[0] < STOP_POLL_SECONDS:
            return False
        last[0] = now
        try:
            return bool(event.is_set())
        except Exception:       # cannot ask: go on (the batch's timeout still bounds the run)
            return False
    return should_stop


class DaskRunner:
    """Grades a batch's jobs as tasks on the Dask cluster at ``address`` (a batch Runner).

    ``address`` is a scheduler address (``tcp://host:8786``) or a
    ``distributed.Client`` / ``LocalCluster`` to use as it is.
    """

    def __init__(self, address: Any, connect_timeout: float | None = None) -> None:
        distributed = _distributed()
        self._own_client = not isinstance(address, distributed.Client)
        if self._own_client:
            # No timeout given: Dask's own (distributed.comm.timeouts.connect, 30 s).
            extra = {} if connect_timeout is None else {"timeout": connect_timeout}
            self.client = distributed.Client(address, set_as_default=False, **extra)
        else:
            self.client = address
        self._stop_name = f"ttt-batch-stop-{uuid.uuid4().hex}"
        self._stop_event = distributed.Event(self._stop_name, client=self.client)
        self._tasks: list[Any] = []

    def submit(self, job: Job) -> concurrent.futures.Future:
        result: concurrent.futures.Future = concurrent.futures.Future()
        payload = payload_for(job, self._stop_name)
        task = self.client.submit(grade_remote, payload, pure=False,
                                  key=f"grade-{job.submission.student_id}-{uuid.uuid4().hex[:8]}")
        self._tasks.append(task)

        def done(task: Any) -> None:     # runs in a thread of the Dask client
            if result.done():
                return
            if task.cancelled():
                result.set_exception(concurrent.futures.CancelledError())
                return
            try:
                result.set_result(task.result())
            except BaseException as problem:   # noqa: BLE001 - handed to the batch
                result.set_exception(problem)

        result.set_running_or_notify_cancel()
        task.add_done_callback(done)
        return result

    def stop(self) -> None:
        """Tell running tasks to stop their grading runs; cancel those not started."""
        try:
            self._stop_event.set()
            waiting = [task for task in self._tasks if not task.done()]
            # Running tasks see the event and end with stopped=True; give them a moment.
            deadline = time.monotonic() + STOP_POLL_SECONDS * 2
            while waiting and time.monotonic() < deadline:
                time.sleep(0.2)
                waiting = [task for task in waiting if not task.done()]
            if waiting:
                self.client.cancel(waiting)
        except Exception:      # the cluster is gone already: nothing left to stop
            pass

    def close(self) -> None:
        try:
            if self._own_client:
                self.client.close()
        except Exception:
            pass

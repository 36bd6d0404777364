"""A warm grader: a preloaded process that forks each ``python -m grader grade`` run.

Most of what one ``grade`` costs the grader is the same every time: starting Python,
importing pytest and the grader, working out and solving the hidden positions, importing
every assignment's hidden tests and reading its configuration, probing bubblewrap. A
:class:`WarmServer` is
a long-lived ``python -m grader.classroom.warm`` process that has done all of that once;
for each grade it forks a child, and the child does exactly what ``python -m grader grade``
does in its main (same arguments, environment, working directory, a session and process
group of its own, stdin from /dev/null, stdout and stderr into the caller's files), then
ends through the interpreter's ordinary exit, with the exit status a subprocess would have.
A fork is a fresh copy of the preloaded state, so nothing of one grade reaches the next; the
student's code still runs only in the grade's sandbox, never in the server or the child.

The server takes one grade at a time: :func:`grader.classroom.run.run_grade` ``take``s an
idle one of the process's servers for each grade and gives it back after, so the threads
that take turns (``batch`` and ``grader serve`` have two per ``--jobs`` slot, the second
for a slot a sleeping grade lends) share about one server per grade at once. The caller
signals the child itself (SIGTERM, then SIGKILL to its group), as it would a subprocess;
the server reaps the child only after the caller has read its exit status, so its pid and
group cannot be reused before that.

The server refuses (:class:`WarmUnavailable`; the caller then runs the grade cold, as a
subprocess) where it is not sure to give the same grade: no ``os.fork`` or no fd passing,
``TTT_GRADER_COLD=1``, or a server that cannot start. A server whose environment differs
from the grade's (other than the per-grade variables below), or whose grader source files
changed on disk since it started, is replaced by a new one first.

>>> warm_wanted({"TTT_GRADER_COLD": "1"}), warm_wanted({}) == fork_available()
(False, True)
"""

from __future__ import annotations

import atexit
import concurrent.futures
import functools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from grader.classroom.orphans import die_with
from grader.classroom.priority import lower_from

COLD_VARIABLE = "TTT_GRADER_COLD"        # "1": every grade in its own fresh process
# Variables each grade sets for itself; none is read before the grade starts.
# (TTT_GRADER_NICE is not one: a server runs at the priority its grades ask for.)
PER_GRADE_VARIABLES = frozenset({"TTT_GRADER_CPU", "TTT_GRADER_LEND", "TTT_GRADER_PROGRESS"})
START_SECONDS = 60.0                     # for a server to import everything and say ready
MAX_MESSAGE = 1 << 20                    # bytes of one protocol message (the environment)
HOME = Path(__file__).resolve().parent.parent.parent   # where `python -m grader` runs
SOURCES = ("grader", "provided")         # the code a server has loaded, watched for changes
# ... and what of it a server has read once for all its grades: the grader's version hashes
# the configuration files and pytest.ini too (grader.suite.config.grader_version).
SOURCE_SUFFIXES = (".py", ".cfg", ".ini")
INSTALLED = ("site-packages", "dist-packages")   # where packages are installed
PROBE_SECONDS = 300.0                    # age at which a server probes bubblewrap again


class WarmUnavailable(Exception):
    """The warm server cannot take this grade; grade it cold (a fresh subprocess)."""


class ServerLost(Exception):
    """The warm server ended while a grade was running: its exit status is unknown."""


def fork_available() -> bool:
    """Whether this system can run a warm server (fork, and file descriptors over sockets)."""
    return (hasattr(os, "fork") and hasattr(socket, "send_fds")
            and hasattr(socket, "SOCK_SEQPACKET") and hasattr(os, "waitid"))


def warm_wanted(environ: Mapping[str, str]) -> bool:
    """Whether a grade run with ``environ`` may be warm (``TTT_GRADER_COLD=1`` says no)."""
    return environ.get(COLD_VARIABLE, "") in ("", "0") and fork_available()


def base_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the per-grade variables: what a server is started with.

    >>> base_environment({"PATH": "/bin", "TTT_GRADER_CPU": "1"})
    {'PATH': '/bin'}
    """
    return {key: value for key, value in environ.items() if key not in PER_GRADE_VARIABLES}


def source_stamp(home: Path = HOME) -> tuple[tuple[str, int, int], ...]:
    """Every loaded source file's name, size and modification time, and the modification
    times of the folders packages are installed in (installing or removing one changes
    it: the ``grader.assignments`` entry points a server has read): a change, a new
    server."""
    stamp = []
    for folder in SOURCES:
        for path in sorted((home / folder).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES:
                continue
            try:
                info = path.stat()
            except OSError:
                continue
            stamp.append((str(path), info.st_size, info.st_mtime_ns))
    for entry in sys.path:
        if Path(entry).name not in INSTALLED:
            continue          # the working directory and the like: their changes are no code
        try:
            info = os.stat(entry)
        except OSError:
            continue
        stamp.append((entry, 0, info.st_mtime_ns))
    return tuple(stamp)


def current_umask() -> int | None:
    """This process's umask (what a subprocess inherits), without changing it; None where
    /proc does not say.

    >>> current_umask() is None or 0 <= current_umask() <= 0o777
    True
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


class WarmProcess:
    """One grade forked by a :class:`WarmServer`; used like ``subprocess.Popen``."""

    def __init__(self, server: "WarmServer", pid: int) -> None:
        self._server = server
        self.pid = pid
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        """Its exit status, as Popen's (negative: the signal that ended it); raises
        ``subprocess.TimeoutExpired`` after ``timeout`` seconds, ServerLost if the
        server ended first."""
        if self.returncode is None:
            message = self._server.receive(timeout)
            if message is None:
                raise subprocess.TimeoutExpired("warm grade", timeout or 0.0)
            self.returncode = int(message["ended"])
            self._server.send({"release": self.pid})   # it may now be reaped
        return self.returncode

    @property
    def server(self) -> "WarmServer":
        """The server that forked it (to ``give_back`` once the grade has ended)."""
        return self._server

    def terminate(self) -> None:
        """SIGTERM to the grade (not its group), as ``Popen.terminate``."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGTERM)


class WarmServer:
    """A preloaded ``python -m grader.classroom.warm`` process and its connection, used by
    one grade at a time (``take`` and ``give_back``). On Linux it ends with this process."""

    def __init__(self, environ: Mapping[str, str], home: Path = HOME) -> None:
        if not fork_available():
            raise WarmUnavailable("this system has no fork or no file descriptor passing")
        self.environ = base_environment(environ)
        self.owner = os.getpid()     # a forked copy of this process must start its own
        self.home = Path(home)
        self.stamp = source_stamp(self.home)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._socket = ours
        try:
            self._process = _pool.in_keeper(functools.partial(
                subprocess.Popen,
                [sys.executable, "-m", "grader.classroom.warm", str(theirs.fileno())],
                cwd=self.home, env=self.environ, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=[theirs.fileno()],
                start_new_session=True, preexec_fn=_server_starts(self.environ)))
        except OSError as problem:
            ours.close()
            raise WarmUnavailable(f"the warm server could not start: {problem}") from None
        finally:
            theirs.close()
        try:
            ready = self.receive(START_SECONDS)
        except ServerLost as lost:
            self.close()
            raise WarmUnavailable(f"the warm server did not start: {lost}") from None
        if ready is None or "ready" not in ready:
            self.close()
            raise WarmUnavailable(f"the warm server did not start within {START_SECONDS:g} s")

    def fits(self, environ: Mapping[str, str],
             stamp: tuple[tuple[str, int, int], ...] | None = None) -> bool:
        """Whether a grade with ``environ`` is exactly what this server's children run:
        the same environment (but the per-grade variables), the same source files
        (``stamp``: ``source_stamp()`` of now, when the caller has it)."""
        return (self.owner == os.getpid() and self.alive()
                and base_environment(environ) == self.environ
                and (source_stamp(self.home) if stamp is None else stamp) == self.stamp)

    def alive(self) -> bool:
        return self._process.poll() is None

    def start(self, argv: list[str], environ: Mapping[str, str], stdout: int,
              stderr: int) -> WarmProcess:
        """Fork a child that runs ``python -m grader`` with ``argv`` (without the
        interpreter and ``-m grader``), ``environ``, and these stdout and stderr
        descriptors. Raises WarmUnavailable if the server cannot (nothing has started)."""
        request = {"argv": list(argv), "env": dict(environ), "cwd": str(self.home),
                   "umask": current_umask()}
        try:
            socket.send_fds(self._socket, [json.dumps(request).encode()], [stdout, stderr])
            message = self.receive(START_SECONDS)
        except (OSError, ServerLost) as problem:
            self.close()
            raise WarmUnavailable(f"the warm server is gone: {problem}") from None
        if message is None or "started" not in message:
            self.close()
            raise WarmUnavailable(f"the warm server did not start the grade: {message}")
        return WarmProcess(self, int(message["started"]))

    def send(self, message: dict) -> None:
        try:
            self._socket.sendall(json.dumps(message).encode())
        except OSError:
            pass   # the server is gone: it has nothing left to reap

    def receive(self, timeout: float | None) -> dict | None:
        """The server's next message, or None after ``timeout`` seconds."""
        ready, _, _ = select.select([self._socket], [], [], timeout)
        if not ready:
            return None
        try:
            data = self._socket.recv(MAX_MESSAGE)
        except OSError as problem:
            raise ServerLost(str(problem)) from None
        if not data:
            raise ServerLost(f"the warm server ended ({self._process.poll()})")
        return json.loads(data)

    def close(self) -> None:
        """End the server (it exits when its connection closes; SIGKILL if it does not)."""
        self._socket.close()
        if self.owner != os.getpid():
            return   # the server is another process's child
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _server_starts(environ: Mapping[str, str]):
    # Linux: the server gets SIGTERM when the thread that started it (the pool's keeper,
    # which lives as long as this process) ends (its running grade then gets its own
    # SIGTERM, as a cold grade would). It runs at the CPU priority its grades ask for
    # (grader.classroom.priority), and so does every grade it forks.
    return functools.partial(_server_child, os.getpid(), dict(environ))


def _server_child(parent: int, environ: Mapping[str, str]) -> None:
    die_with(parent)
    lower_from(environ)


class _Pool:
    """This process's warm servers: ``idle`` ones wait for a grade, each ``busy`` one runs
    one. A server is started from the keeper, a thread that lives as long as the process,
    so it ends with the process (SIGKILL included), not with the thread that wanted it;
    any thread may then grade with it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: list[WarmServer] = []
        self.busy: list[WarmServer] = []
        self.failed: str | None = None            # why a server could not start here
        self.keeper: tuple[int, concurrent.futures.ThreadPoolExecutor] | None = None

    def in_keeper(self, function: Any) -> Any:
        """``function()`` run by the keeper thread (this process's own: a forked copy of
        the process makes its own)."""
        with self.lock:
            if self.keeper is None or self.keeper[0] != os.getpid():
                self.keeper = (os.getpid(), concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="warm-keeper"))
            keeper = self.keeper[1]
        return keeper.submit(function).result()


_pool = _Pool()


def server_for(environ: Mapping[str, str]) -> WarmServer:
    """An idle warm server for a grade with ``environ``: one this process has if it fits,
    else a new one (it stays idle: ``take`` one to grade with). Raises WarmUnavailable
    (grade cold) if warm grading is off or cannot start here; a server that failed to
    start is not tried again in this process."""
    return _find(environ, take=False)


def take(environ: Mapping[str, str]) -> WarmServer:
    """A warm server for one grade with ``environ``, no other grade's until ``give_back``:
    an idle one that fits, else a new one (WarmUnavailable as ``server_for``). Servers are
    shared by all the threads of the process: a batch or a page that grades ``jobs`` at a
    time keeps about ``jobs`` servers, whichever threads grade."""
    return _find(environ, take=True)


def give_back(server: WarmServer) -> None:
    """A grade ended: its server waits for the next (or ends, if it has ended or changed
    hands in a fork)."""
    with _pool.lock:
        if server in _pool.busy:
            _pool.busy.remove(server)
        keep = server.owner == os.getpid() and server.alive()
        if keep:
            _pool.idle.append(server)
    if not keep:
        server.close()


def _find(environ: Mapping[str, str], take: bool) -> WarmServer:
    if not warm_wanted(environ):
        raise WarmUnavailable(f"{COLD_VARIABLE} is set or this system cannot fork")
    stamp = source_stamp()
    ended: list[WarmServer] = []
    with _pool.lock:
        if _pool.failed is not None:
            raise WarmUnavailable(_pool.failed)
        found = next((server for server in _pool.idle if server.fits(environ, stamp)), None)
        if found is None:
            # The newest environment (or source) wins: idle servers for another one end.
            ended = list(_pool.idle)
            _pool.idle.clear()
        elif take:
            _pool.idle.remove(found)
            _pool.busy.append(found)
    for server in ended:
        server.close()
    if found is not None:
        return found
    try:
        server = WarmServer(environ)
    except WarmUnavailable as problem:
        with _pool.lock:
            _pool.failed = str(problem)
        raise
    with _pool.lock:
        (_pool.busy if take else _pool.idle).append(server)
    return server


@atexit.register
def close_all() -> None:
    """End every warm server of this process (at exit; tests call it too)."""
    with _pool.lock:
        servers = _pool.idle + _pool.busy
        _pool.idle, _pool.busy, _pool.failed = [], [], None
    for server in servers:
        server.close()


# -- the server's side ---------------------------------------------------------------------

def preload() -> None:
    """Import what every grade imports, work out the hidden positions and solve them
    (deterministic, immutable), and probe bubblewrap, so that each forked grade starts
    with them done."""
    import grader.suite.command  # noqa: F401 - what a grade runs (python -m grader grade)
    import grader.judge.play  # noqa: F401 - imported later by every grade
    import grader.assignments.minimax.session  # noqa: F401 - its prepare imports it
    import grader.suite.style  # noqa: F401
    # pytest's plugins a grade loads (grader.suite.engine turns the others off).
    import _pytest.helpconfig, _pytest.skipping, _pytest.tracemalloc  # noqa: F401,E401
    import _pytest.unittest, _pytest._argcomplete, _pytest.warnings  # noqa: F401,E401
    import pytest_timeout  # noqa: F401 - the backstop every grade turns on
    # The standard library's share of what they import in a grade (a grade loads no other
    # plugin: see grader.suite.engine).
    import faulthandler, pdb, readline  # noqa: F401,E401
    import email.parser  # noqa: F401 - importlib.metadata reading a distribution's metadata
    from grader.judge.positions import hidden_positions
    from grader.judge.solver import reachable, shared_solver
    # Every 3x3 game a grade can play, both modes, and the hidden positions: solved once
    # (0.3 s here: winners, values, best moves, tree sizes) instead of in each grade (0.08 s
    # of every grade's judging).
    for positions in (reachable(3), reachable(3, reverse=True),
                      hidden_positions(exhaustive=False).all()):
        shared_solver().solve(positions)
    preload_assignments()
    probe_bubblewrap()


def preload_assignments() -> None:
    """What every grade of every assignment reads the same way, done once: the installed
    assignments (their entry points), each one's hidden test modules (imported under the
    names pytest's importlib mode looks for, so a grade's collection finds them imported),
    each one's default configuration (its rubric's items, read from those tests), and the
    grader's version (a hash of its source, which the server is replaced on a change of:
    ``source_stamp``). About 0.1 s of every grade's own CPU. An assignment whose modules
    fail here is left to each grade, which says why as it would cold."""
    import importlib
    from grader.assignments import registry
    from grader.suite.config import Config, grader_version
    grader_version()
    for assignment in registry.available():
        try:
            Config.load(assignment=assignment.name)
            for test_file in assignment.suite:
                name = package_module_name(Path(test_file))
                if name is not None:
                    importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an instructor's assignment: its grades say why
            continue


def package_module_name(path: Path) -> str | None:
    """The dotted name of the module at ``path`` inside its packages (the folders above it
    that hold an ``__init__.py``), as pytest's importlib mode names it; None when it is in
    no package.

    >>> package_module_name(HOME / "grader" / "suite" / "test_rubric.py")
    'grader.suite.test_rubric'
    >>> package_module_name(Path("/nowhere/test_x.py")) is None
    True
    """
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) if len(parts) > 1 else None


_probed_at = float("-inf")


def probe_bubblewrap() -> None:
    """Probe bubblewrap now (each grade's sandbox asks whether it works: 0.06 s of every
    grade when each probes for itself). Only a success is kept for the grades: after a
    failure (perhaps a passing one: a timeout under load) each grade probes for itself,
    as a cold one does."""
    global _probed_at
    from grader.sandbox.layers import bwrap_problem
    bwrap_problem.cache_clear()
    if bwrap_problem() is not None:
        bwrap_problem.cache_clear()
    _probed_at = time.monotonic()


def probe_if_stale() -> None:
    """Probe bubblewrap again once the last probe is PROBE_SECONDS old, so that a change
    on the machine reaches a long-lived server's grades too."""
    if time.monotonic() - _probed_at > PROBE_SECONDS:
        probe_bubblewrap()


def serve(connection: socket.socket) -> dict | None:
    """Fork a child per request; in the child, return its request (the caller then runs
    the grade); in the server, return None when the connection closes."""
    preload()
    connection.sendall(json.dumps({"ready": os.getpid()}).encode())
    while True:
        data, fds, _, _ = socket.recv_fds(connection, MAX_MESSAGE, 2)
        if not data:
            return None
        request = json.loads(data)
        if threading.active_count() > 1:   # a fork would copy a thread's half-done state
            for fd in fds:
                os.close(fd)
            connection.sendall(json.dumps({"error": "the server runs threads"}).encode())
            continue
        probe_if_stale()
        sys.stdout.flush()                  # nothing of the server's may reach a grade's
        sys.stderr.flush()
        server = os.getpid()
        pid = os.fork()
        if pid == 0:
            connection.close()
            _become_grade(request, fds, server)
            return request
        for fd in fds:
            os.close(fd)
        connection.sendall(json.dumps({"started": pid}).encode())
        # WNOWAIT: the child stays a zombie (its pid and group reserved) until released.
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        connection.sendall(json.dumps({"ended": code}).encode())
        try:
            connection.recv(MAX_MESSAGE)   # the caller's release (or its end)
        finally:
            os.waitpid(pid, 0)


def _become_grade(request: dict, fds: list[int], server: int) -> None:
    """In the forked child: what ``subprocess.Popen(..., start_new_session=True, stdin=
    DEVNULL, cwd=..., env=...)`` of run_grade gives a cold grade, then its argv."""
    os.setsid()
    die_with(server)                # SIGTERM when the server ends, as run_grade's children
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    stdout, stderr = fds
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.close(stdout)
    os.close(stderr)
    os.chdir(request["cwd"])
    if request.get("umask") is not None:
        os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    main = Path(request["cwd"]) / "grader" / "__main__.py"
    sys.argv = [str(main), *request["argv"]]


def end_grade(code: int | None) -> None:
    """End a forked grade that returned ``code`` as the interpreter's exit would, less the
    teardown of the heap it copied from the server (65 ms of every grade here, for
    nothing anyone sees): the atexit handlers (weakref finalizers among them) and the
    standard streams, then ``os._exit``. Where that could differ from an ordinary exit (a
    thread still running, a stream that cannot be flushed) it exits the ordinary way."""
    if threading.active_count() == 1:
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - the ordinary exit reports it, and says 120
            pass
        else:
            os._exit(0 if code is None else code)
    sys.exit(code)


if __name__ == "__main__":
    _request = serve(socket.socket(fileno=int(sys.argv[1])))
    if _request is None:
        sys.exit(0)
    del _request
    from grader.suite.command import main as _grade
    end_grade(_grade())

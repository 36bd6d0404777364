"""The child side of ``python -m student check``: one call of ``mm_move``, answered in JSON.

    python -m student.runner PATH < {"dim": 1, "reverse": false, "grid": [[1]], "player": 2,
                                     "cpu_limit": 0.5, "cpu": 0}

imports PATH (the course's modules resolved as ``provided.course`` says, any game it plays
at import paused), calls its ``mm_move`` on that board, and writes one JSON line to
stdout: ``{"kind": "answer", "answer": "(1, (0, 0))", "score": 1, "move": [0, 0],
"cpu_seconds": 0.0001}`` (see ``student.checks`` for the kinds). The answer is read by
``provided.answers``, as the grader reads it. What the student's code prints (``print``,
``sys.stdout``, ``sys.stderr``) is kept apart, for the import and for the call, and its
first lines and count travel in the JSON line (``import_printed``, ``printed``), so the
check can show them without garbling the answer; output written past Python's streams
(os.write, C code) goes to stderr.

The call (not the import) may use ``cpu_limit`` seconds of CPU time: then it is stopped
and the line says ``{"kind": "timeout", "cpu_seconds": ...}``, as the grader stops a call
at its limit. ``cpu``: the one CPU to run on, the one the check's yardstick ran on.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

from provided import course
from provided.answers import BadAnswer, plain, read_answer, show
from provided.board import TTTBoard
from provided.python2 import compile_problem, exception_hint, import_hint
from provided.source import SourceError, grader_can_import, read_source
from student.yardstick import pin

WAIT_GRACE = 1.5   # a call active this many times its CPU limit is not computing: stop it
WATCH_EVERY = 0.02   # seconds between two looks at a call's CPU and active time
KEPT_LINES = 20      # lines of printed output sent back (the rest are only counted)
KEPT_CHARS = 4000    # characters of printed output kept, whatever the lines
LINE_CHARS = 200     # a kept line longer than this is cut

# Our own clocks, taken before any student code can replace the module attributes.
_cpu_time = time.process_time
_monotonic = time.monotonic


def main() -> None:
    serve(call_mm_move)


def serve(handler: Callable[[Path, dict[str, Any], Callable[..., NoReturn]], dict[str, Any]]
          ) -> None:
    """The child's whole life: read the request (JSON on stdin), let ``handler(path,
    request, out_of_time)`` run the student's code, and write its JSON line to stdout.
    ``student.mc_runner`` serves the Monte Carlo functions with it."""
    result_fd = os.dup(1)
    os.dup2(2, 1)  # from here on, prints (even from C code) go to stderr
    position = json.load(sys.stdin)
    pin(position.get("cpu"))

    def report(result: dict[str, Any]) -> None:
        os.write(result_fd, (json.dumps(result) + "\n").encode())

    once = threading.Lock()

    def out_of_time(used: float, waited: bool = False,
                    printed: dict[str, Any] | None = None) -> NoReturn:
        # The CPU timer's signal and the watcher thread can both find the call out of
        # time at once: the first one reports, the other waits for the exit.
        once.acquire()
        report({"kind": "timeout", "cpu_seconds": used, "waited": waited, **(printed or {})})
        os._exit(0)   # at once: the student's code cannot catch this

    result = handler(Path(sys.argv[1]), position, out_of_time)
    sys.stdout.flush()
    report(result)


def call_mm_move(path: Path, position: dict[str, Any],
                 out_of_time: Callable[..., NoReturn] | None = None) -> dict[str, Any]:
    """Load ``path``, call its mm_move on ``position``, and describe what happened.

    Returns a JSON-ready dict; every failure of the student's code is reported, not raised.
    With ``position["cpu_limit"]``, ``out_of_time(cpu_seconds)`` is called when the call
    has used that much CPU time (where the system can tell: not on Windows), and
    ``out_of_time(cpu_seconds, waited=True)`` when it has been active (computing, sleeping
    or waiting for input; not waiting for a CPU that other processes hold) well past it
    (where the system says: Linux), as the grader stops a call that sleeps.
    """
    def pick(module: Any) -> Callable[..., Any]:
        mm_move = getattr(module, "mm_move", None)
        if not callable(mm_move):
            raise LoadFailure(f"{path} defines no function mm_move(board, player)")
        return mm_move

    def call(mm_move: Callable[..., Any], stopped: Callable[..., NoReturn] | None
             ) -> dict[str, Any]:
        return _call(path, mm_move, position, stopped)

    return call_loaded(path, pick, call, out_of_time)


def call_loaded(path: Path, pick: Callable[[Any], Any],
                call: Callable[[Any, Callable[..., NoReturn] | None], dict[str, Any]],
                out_of_time: Callable[..., NoReturn] | None = None) -> dict[str, Any]:
    """Import ``path`` (what it prints kept apart, the games it starts paused), take what
    ``call`` needs from the module with ``pick(module)`` (a LoadFailure there, as in the
    import, becomes ``{"kind": "load_error"}``), then run ``call(picked, stopped)`` with what
    it prints kept apart too. Returns ``call``'s JSON-ready dict with the printed output and
    the paused games added. ``stopped(cpu_seconds, waited=False)`` is ``out_of_time`` with
    what was printed until then (None without ``out_of_time``)."""
    calls: list[str] = []
    at_import = Printed()
    try:
        with at_import.capturing():
            picked = pick(_load_module(path, calls))
    except LoadFailure as exc:
        return {"kind": "load_error", "message": str(exc)}
    printed = Printed()

    def outputs() -> dict[str, Any]:
        return {**at_import.report("import_printed"), **printed.report("printed")}

    stopped = None
    if out_of_time is not None:
        def stopped(used: float, waited: bool = False) -> NoReturn:
            out_of_time(used, waited, outputs())   # with what it printed until then

    with printed.capturing():
        result = call(picked, stopped)
    result.update(outputs())
    result.setdefault("import_calls", calls)
    return result


def _call(path: Path, mm_move: Callable[..., Any], position: dict[str, Any],
          out_of_time: Callable[..., NoReturn] | None) -> dict[str, Any]:
    """Call ``mm_move`` on ``position``'s board; describe the answer (see call_mm_move)."""
    board = TTTBoard(position["dim"], position["reverse"], position["grid"])
    before = repr(board)
    start = _cpu_time()
    try:
        with _cpu_limit(position.get("cpu_limit"), out_of_time, start):
            answer = mm_move(board, position["player"])
    except NotImplementedError as exc:
        return {"kind": "not_written", "message": str(exc)}
    except (Exception, SystemExit) as exc:
        return {"kind": "error", "message": _own_frames(exc, path),
                "cpu_seconds": _cpu_time() - start}
    used = _cpu_time() - start
    after = _safe_repr(board)
    seen = plain(answer)
    result: dict[str, Any] = {"kind": "answer", "answer": show(seen), "cpu_seconds": used}
    if after != before:
        result["board_after"] = after
    try:
        read = read_answer(seen)
    except BadAnswer as problem:
        result["problem"] = str(problem)
    else:
        result.update(score=read.score, move=list(read.move), notes=list(read.notes))
    return result


class Printed(io.TextIOBase):
    """Stands for sys.stdout and sys.stderr while the student's code runs: keeps the first
    lines printed and counts them all (an endless print costs no memory).

    >>> printed = Printed()
    >>> with printed.capturing():
    ...     for i in range(30):
    ...         print("depth", i)
    >>> report = printed.report("printed")
    >>> report["printed_lines"], report["printed"][:2], len(report["printed"])
    (30, ['depth 0', 'depth 1'], 20)
    """

    def __init__(self) -> None:
        super().__init__()
        self.head = ""          # the first KEPT_CHARS characters
        self.ends = 0         # newlines written
        self.open_line = False  # the last line has no newline yet: it counts too

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):   # as a real text stream says it
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self.ends += text.count("\n")
            self.open_line = not text.endswith("\n")
            if len(self.head) < KEPT_CHARS:
                self.head += text[:KEPT_CHARS - len(self.head)]
        return len(text)

    @property
    def lines(self) -> int:
        return self.ends + self.open_line

    def report(self, name: str) -> dict[str, Any]:
        """``{name: first lines, name + "_lines": how many}``, or {} if nothing was printed."""
        if not self.lines:
            return {}
        kept = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "..."
                for line in self.head.splitlines()[:KEPT_LINES]]
        return {name: kept, f"{name}_lines": self.lines}

    @contextlib.contextmanager
    def capturing(self) -> Iterator[None]:
        """Send sys.stdout and sys.stderr here for the block (whatever the block rebinds)."""
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def _cpu_limit(limit: float | None, out_of_time: Callable[..., NoReturn] | None,
               start: float) -> Iterator[None]:
    """Call ``out_of_time`` once the process has used ``limit`` more seconds of CPU time
    (a profiling timer counts every thread's CPU time, not the time spent waiting), or has
    been active for much longer than that while computing little."""
    if not limit or out_of_time is None or not hasattr(signal, "setitimer"):
        yield
        return
    signal.signal(signal.SIGPROF, lambda *_: out_of_time(_cpu_time() - start))
    signal.setitimer(signal.ITIMER_PROF, limit)
    done = threading.Event()
    watch = threading.Thread(target=_watch_waiting, daemon=True,
                             args=(limit, out_of_time, start, threading.get_native_id(), done))
    watch.start()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        done.set()


def _watch_waiting(limit: float, out_of_time: Callable[..., NoReturn], start: float,
                   thread: int, done: threading.Event) -> None:
    """Stop the call once it has used ``limit`` seconds of CPU time (should the profiling
    timer not fire: code can disarm it), or once its main ``thread`` has been active (on
    a CPU, or sleeping, or blocked: anything but queued for a CPU) for WAIT_GRACE times
    ``limit`` plus half a second."""
    queued_then = _queued_seconds(thread)
    began = _monotonic()
    while not done.wait(WATCH_EVERY):
        used = _cpu_time() - start
        if used > limit:
            out_of_time(used)
        if queued_then is None:   # no /proc: the parent's wall-clock backstop remains
            continue
        queued = _queued_seconds(thread)
        active = _monotonic() - began - ((queued or queued_then) - queued_then)
        if active > WAIT_GRACE * limit + 0.5:
            out_of_time(used, waited=True)


def _queued_seconds(thread: int) -> float | None:
    """How long ``thread`` of this process has waited for a CPU (Linux), or None."""
    try:
        with open(f"/proc/self/task/{thread}/schedstat", "rb") as file:
            return int(file.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class LoadFailure(Exception):
    """The file cannot be run: the message is the grader's reason, and what to do."""


def read_and_compile(path: Path) -> str:
    """The file's source, once it is known to compile; LoadFailure otherwise, in the
    grader's words (``provided.source``: too large, empty, binary, not UTF-8; then Python
    2 or a syntax error). ``python -m student check`` asks it once, before any check.

    >>> read_and_compile(Path("/nonexistent/mm_player.py"))
    Traceback (most recent call last):
    ...
    student.runner.LoadFailure: there is no file /nonexistent/mm_player.py
    """
    try:
        _data, source = read_source(path)
    except SourceError as problem:
        raise LoadFailure(problem.message) from None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        message = _syntax_message(path, exc, source)
        if path.suffix != ".py":
            message += (f"\n-> {path.name} is not a Python file: check (and hand in) the .py "
                        "file in which you wrote mm_move")
        raise LoadFailure(message) from None
    except ValueError as exc:    # a NUL byte: read_source refuses those first
        raise LoadFailure(f"{path} does not compile: {exc}") from None
    return source


class GraderImports:
    """Refuses the imports the grader refuses: where it runs a file, only the standard
    library, ``provided`` and the course's modules are there (``provided.source``), not
    what pip installed here (numpy) nor the files beside this one. First on
    ``sys.meta_path``, it raises the grader's ModuleNotFoundError for any other module.

    >>> GraderImports(set()).find_spec("math") is None
    True
    >>> GraderImports(set()).find_spec("numpy")
    Traceback (most recent call last):
    ...
    ModuleNotFoundError: No module named 'numpy'
    """

    def __init__(self, packages: set[str]) -> None:
        self.packages = packages   # the packages the file's course imports go through

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if "." in fullname or fullname in self.packages or grader_can_import(fullname):
            return None           # a submodule: its package was allowed already
        raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def _load_module(path: Path, calls: list[str]) -> Any:
    """Import the student's file under a name of its own; return the module."""
    source = read_and_compile(path)
    course.install(source)  # poc_ttt_gui, codeskulptor, ... under any path it uses
    sys.meta_path.insert(0, GraderImports(course.import_paths(source)))
    sys.dont_write_bytecode = True   # as the grader (python -B): no __pycache__ beside it
    sys.path.insert(0, str(path.parent))  # so the file can import its course modules
    name = "mm_player_under_check"
    # The loader named outright: a file whose name does not end in .py loads too.
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    try:
        with course.paused_games(calls):  # a game at the top level would run every time
            loader.exec_module(module)
    except SyntaxError as exc:
        raise LoadFailure(_syntax_message(path, exc, source)) from None
    except ModuleNotFoundError as exc:
        hint = import_hint(f"ModuleNotFoundError: {exc}")
        raise LoadFailure(f"{path} could not be imported: {exc}"
                           + (f"\n-> {hint}" if hint else "")) from None
    except (Exception, SystemExit) as exc:
        raise LoadFailure(f"{path} failed while being imported:\n"
                           + _own_frames(exc, path)) from None
    return module


def _syntax_message(path: Path, exc: SyntaxError, source: str) -> str:
    """The grader's words for a file that does not compile: Python 2, with the fix."""
    problem = compile_problem(exc, source)
    # The Python 2 fix fits on the line; Python's own message starts on the next.
    separator = " " if problem.startswith("line ") else "\n"
    return f"{path} does not compile:{separator}{problem}"


def _own_frames(exc: BaseException, path: Path) -> str:
    """The traceback, keeping only the frames of the student's file (and what it called),
    with the grader's hint when the error is one that Python 2 habits cause."""
    tb = exc.__traceback__
    # Skip this module's and importlib's frames until the student's own code starts.
    while tb is not None and Path(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb)
    text = "".join(lines).rstrip()
    if len(text) > 3000:  # a RecursionError's traceback runs to thousands of lines
        text = "...\n" + text[-3000:]
    hint = exception_hint(exc, text)
    return f"{text}\n{hint}" if hint else text


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ in the student's objects
        text = f"<unprintable {type(value).__name__}: {exc}>"
    return text if len(text) <= 300 else text[:300] + "..."


if __name__ == "__main__":
    main()

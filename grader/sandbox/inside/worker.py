"""The worker: runs INSIDE the sandbox, imports one submission and answers calls.

:class:`grader.sandbox.process.Worker` starts it; nobody else should::

    python -I -S -B -c BOOTSTRAP INSIDE_DIR CONFIG_JSON    (grader.sandbox.process.BOOTSTRAP)

Standard library only, and small, like the rest of this folder (``confine`` sheds rights,
``encode`` writes answers, ``reference`` is the search the limits are measured against). It
builds a fresh board for each call, calls the student's function and reports raw facts (the
answer with exact type tags, the board's cells afterwards, the exception). Judging and
timing are the parent's job: it measures this process's CPU time from outside (/proc) and
stops a call that goes past its limit, so nothing the student patches in here can change a
time. The parent trusts nothing that comes back.

One JSON line per request arrives on a private pipe, one JSON line per answer leaves on
another, echoing the request's token (a batch of calls, op "calls", is one request and one
answer); the student's stdout and stderr go to a separate pipe, so printing can never clog
the answers. Before the submission is loaded the parent may ask for the reference search
(op "ref"), which it times from outside.

Before the first line of the submission runs, the worker hides its two pipe ends above
descriptor 1024, then sheds what it can (each step where the system has it): no new
privileges; the sandbox's own uid (when started as root); Landlock (what it may read and
write, no TCP, no signal outside the sandbox); rlimits. The hello message says which held.
"""

import builtins
import os
import sys

# The other modules of this folder, which is on sys.path inside the sandbox.
import confine
import entropy
import reference
from encode import MAX_TEXT, Encoder

MAX_REQUEST = 1 << 20   # bytes in one request line
MAX_MESSAGE = 2000      # characters of an exception message
TB_FRAMES = 5           # frames of the student's file shown in an error
SHIM_NAMES = frozenset({"provided", "poc_ttt_provided", "poc_ttt_gui", "codeskulptor",
                        "simplegui", "worker", "confine", "encode", "reference", "entropy"})

# Our own references, taken before any student code can replace the module attributes.
_write = os.write
_exit = os._exit
_type_name = type.__dict__["__name__"].__get__

# JSON and signals through the C modules that json and signal wrap: those two import re and
# enum, a third of a worker's start (5 ms, paid at every grade and after every crash or
# timeout). Where the C modules are missing or answer otherwise, json and signal do it.
try:
    import _signal as signal
    from _json import encode_basestring_ascii, make_encoder, make_scanner

    class _Context:
        """What _json's scanner reads from a json.JSONDecoder: its defaults."""

        strict = True
        object_hook = object_pairs_hook = None
        parse_float, parse_int, parse_constant = float, int, float

    def _refuse(value):
        raise TypeError(f"{_type_name(type(value))} is not JSON")

    # json.dumps's defaults, less the check for circular lists (a message is a fresh tree).
    _encode = make_encoder(None, _refuse, encode_basestring_ascii, None, ": ", ", ",
                           False, False, True)
    _scan = make_scanner(_Context())

    def _dumps(message):
        return "".join(_encode(message, 0))

    def _loads(line):
        text = line.decode() if isinstance(line, bytes) else line
        value, end = _scan(text, 0)
        if text[end:].strip():
            raise ValueError("more than one JSON value on a line")
        return value

    _SAMPLE = {"tok": "ab", "v": [1, -0.5, None, True, "\u00e9\n"], "x": float("inf")}
    _TEXT = '{"tok": "ab", "v": [1, -0.5, null, true, "\\u00e9\\n"], "x": Infinity}'
    if _dumps(_SAMPLE) != _TEXT or _loads(_TEXT.encode() + b"\n") != _SAMPLE:
        raise ValueError("_json answers otherwise than json here")
except Exception:  # noqa: BLE001 - another Python: the packages themselves
    import json
    import signal
    _dumps, _loads = json.dumps, json.loads


class _State:
    """The answer channel's descriptor (hidden above 1024, see _fd_range)."""

    ans_fd = -1


def main(config_text):
    """Set the process up, then serve requests until the parent closes the pipe."""
    config = _loads(config_text)
    confine.keep_niceness()       # its own session (start_new_session): the grade's nice
    if config.get("supervise"):   # outside bubblewrap: a subreaper that stays behind
        confine.supervise()
    sys.argv[:] = [config["file"]]  # the channel's fd numbers are not the student's business
    low, high = confine.fd_range()
    req_fd = confine.hide_fd(config["req"], low, high)
    _State.ans_fd = confine.hide_fd(config["ans"], low, high)
    confine.close_all_but((req_fd, _State.ans_fd), high)  # bubblewrap's info pipe, for one
    here = os.path.dirname(os.path.abspath(__file__))  # this folder: not for students
    # The box (the submission and its helper modules) goes before config["path"] only when
    # the submission is loaded (_Server.load): provided is imported from there first.
    sys.path[:] = [p for p in sys.path if p and p != here] + config["path"]
    # Now, before Landlock hides the folder that holds provided (the grader's folder too).
    import encode
    import provided.bases
    import provided.course
    import provided.game  # noqa: F401
    provided.course.gui_off()  # no window in here: run_gui does nothing
    encode.BUILTIN_BASES = provided.bases.BUILTIN_BASES
    hello = {"status": "ready", "nnp": confine.no_new_privileges()}
    if config.get("uid") is not None:
        # Root (inside bubblewrap, or the fallback run as root): become the sandbox's own
        # uid for good before the first line of student code. This clears every capability,
        # except, when that uid could not read the Python installation, reading past file
        # permissions (CAP_DAC_READ_SEARCH); Landlock then limits what may be read.
        try:
            hello["read_cap"] = confine.become(config["uid"], config["gid"], config.get("read_cap"))
        except OSError as exc:  # no CAP_SETUID (a container that dropped it): stay root
            hello["uid_error"] = str(exc)
    hello["caps"] = confine.capabilities()   # before Landlock hides /proc
    try:
        hello["landlock"] = confine.landlock(config.get("landlock"))
    except OSError as exc:  # nothing was restricted: restrict_self is the only step that does
        hello["landlock"], hello["landlock_error"] = 0, str(exc)
    if hello.get("read_cap") and not hello["landlock"]:  # never past file permissions unconfined
        hello["read_cap"] = confine.drop_read_cap()
        hello["caps"] = confine.capabilities()
    hello["rlimits"] = confine.set_rlimits(config["rlimits"])
    hello["uid"] = os.getuid()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long file write fails, not kills
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr = sys.stdout  # one buffered stream: cheap, and the parent sees prints in order
    if not hasattr(builtins, "exit"):  # -S skipped site, which defines exit() and quit()
        builtins.exit = builtins.quit = _quit
    server = _Server(config, os.fdopen(req_fd, "rb"))
    server.serve(hello)


def _quit(code=None):
    raise SystemExit(code)


def _send(message):
    data = (_dumps(message) + "\n").encode()
    while data:
        data = data[_write(_State.ans_fd, data):]


def _flush_stdio():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


class _Server:
    def __init__(self, config, requests):
        self.requests = requests
        self.box = config["box"]
        self.path = os.path.join(self.box, config["file"])
        self.after_box = len(config["path"])   # sys.path's entries that follow the box
        self.namespace = {}
        self.lines = []
        self.helper_lines = {}   # a helper module's file -> its lines (for tracebacks)
        self.loaded = False  # once student code has run, the reference is no longer trusted
        import provided  # the course module; kept by reference, whatever the student rebinds
        self.board_class = provided.TTTBoard
        slot = provided.TTTBoard.__dict__.get("_cells")
        self.cells_slot = slot if _type_name(type(slot)) == "member_descriptor" else None
        self.square = provided.TTTBoard.square

    def serve(self, hello):
        hello_sent = False
        while True:
            line = self.requests.readline(MAX_REQUEST)
            if not line.endswith(b"\n"):
                _exit(0)  # the parent is gone, or sent nonsense
            request = _loads(line)
            token = request["tok"]
            if not hello_sent:
                _send(dict(hello, tok=token))
                hello_sent = True
            if request["op"] == "load":
                answer = self.load(request)
            elif request["op"] == "ref":
                answer = reference.reference(request) if not self.loaded else {"status": "refused"}
            elif request["op"] == "calls":
                answer = self.calls(request)
            elif request["op"] == "invoke":
                answer = self.invoke(request)
            else:
                answer = self.call(request)
            _flush_stdio()
            answer["tok"] = token
            _send(answer)

    # -- loading -------------------------------------------------------------------------

    def load(self, request):
        self.loaded = True
        # The same sequence of random numbers in every run: a submission that breaks ties at
        # random gets the same answers, so the same grade, every time. Randomness drawn any
        # other way the standard library offers (random.seed(), SystemRandom, os.urandom,
        # secrets) is made to follow the same seed (see entropy.py).
        entropy.install()
        entropy.reseed(0)
        with open(self.path, "rb") as file:
            source = file.read()
        self.lines = source.decode("utf-8", "replace").splitlines()
        try:
            code = compile(source, self.path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return {"status": "load_error", "kind": "syntax", "line": exc.lineno,
                    "offset": exc.offset, "text": (exc.text or "").rstrip("\n")[:MAX_TEXT],
                    "message": "%s: %s" % (_type_name(type(exc)), exc.msg)}
        except (ValueError, MemoryError, RecursionError) as exc:
            return {"status": "load_error", "kind": "syntax", "line": None, "text": "",
                    "message": "%s: %s" % (_type_name(type(exc)), exc)}
        # Its folder, with its helper modules, after the standard library and before the
        # folder provided came from: a helper's import finds it under bubblewrap and
        # without alike, whatever else lies beside provided (under bubblewrap, nothing).
        sys.path.insert(len(sys.path) - self.after_box, self.box)
        # The course's modules, under whatever path the file imports them.
        import provided.course
        provided.course.install(source.decode("utf-8", "replace"))
        name = _module_name(os.path.basename(self.path))
        module = type(sys)(name)
        module.__file__ = self.path
        module.__builtins__ = builtins
        sys.modules[name] = module
        self.namespace = module.__dict__
        calls = []
        # Old files play a game at their top level: not here (the calls are reported).
        with provided.course.paused_games(calls):
            try:
                exec(code, self.namespace)
            except SystemExit as exc:
                return dict(self._where(exc), status="load_error", kind="exit",
                            message="SystemExit: %s" % _text(exc))
            except BaseException as exc:
                return dict(self._where(exc), status="load_error", kind="import_error",
                            message=self.describe(exc))
        required = request.get("require") or ["mm_move"]
        for wanted in required:
            if not callable(self.namespace.get(wanted)):
                found = self.namespace.get(wanted, None)
                return {"status": "load_error", "kind": "no_function", "line": None,
                        "text": "", "name": wanted, "required": required,
                        "message": "%s is %s" % (wanted, "missing" if found is None
                                                 else "a " + _type_name(type(found))),
                        "functions": self._functions()}
        constants = {}
        for wanted in request.get("constants") or ():
            if wanted in self.namespace:
                try:
                    constants[wanted] = Encoder().encode(self.namespace[wanted], 0)
                except BaseException:
                    pass
        return {"status": "loaded", "calls": calls, "module": name, "constants": constants}

    def _functions(self):
        return [key for key, value in self.namespace.items()
                if _type_name(type(value)) == "function"][:20]

    def _where(self, exc):
        """The innermost line of the student's file in exc's traceback."""
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.path:
                line = tb.tb_lineno
            tb = tb.tb_next
        return {"line": line, "text": self._line(line)}

    def _line(self, number, filename=None):
        """Line ``number`` of the submission, or of the helper module ``filename``."""
        lines = self.lines
        if filename is not None and filename != self.path:
            if filename not in self.helper_lines:
                try:
                    with open(filename, "rb") as file:
                        text = file.read(1 << 20).decode("utf-8", "replace")
                except OSError:
                    text = ""
                self.helper_lines[filename] = text.splitlines()
            lines = self.helper_lines[filename]
        if number is None or not 0 < number <= len(lines):
            return ""
        return lines[number - 1].strip()[:MAX_TEXT]

    # -- calling -------------------------------------------------------------------------

    def call(self, request):
        name = request["fn"]
        function = self.namespace.get(name)
        if not callable(function):
            return {"status": "error", "board": None,
                    "error": "the submission has no function %s" % name}
        dim = request["dim"]
        cells = request["cells"]
        board = self.board_class(dim, request["reverse"],
                                 [cells[r * dim:r * dim + dim] for r in range(dim)])
        args = (board, request["player"])
        if name == "move_wrapper":
            args += (request["trials"],)
        answer = self.answer(function, args)
        answer["board"] = self.cells(board, dim)
        return answer

    def invoke(self, request):
        """Any function of the file by name, with arguments built fresh from their tags:
        ``{"board": [dim, cells, reverse]}`` a TTTBoard, ``{"grid": rows}`` a list of lists,
        ``{"value": v}`` a plain JSON value. An item ``{"globals": {name: number}}`` is no
        argument: those module values are set first (the score constants the grader judges
        by, where it does not use the file's own). ``random`` is seeded with the request's
        ``seed`` first. The answer holds the return value and, per argument, what the call
        left in it (a board's cells, a grid's encoding, None for a value or globals)."""
        name = request["fn"]
        function = self.namespace.get(name)
        if not callable(function):
            return {"status": "error", "after": None,
                    "error": "the submission has no function %s" % name}
        args = []
        for arg in request["args"]:
            if "globals" in arg:
                self.namespace.update(arg["globals"])
            elif "board" in arg:
                dim, cells, reverse = arg["board"]
                args.append(self.board_class(dim, reverse,
                                             [cells[r * dim:r * dim + dim] for r in range(dim)]))
            elif "grid" in arg:
                args.append([list(row) for row in arg["grid"]])
            else:
                args.append(arg["value"])
        entropy.reseed(request["seed"])
        answer = self.answer(function, args)
        after = []
        values = iter(args)
        for arg in request["args"]:
            value = None if "globals" in arg else next(values)
            if "board" in arg:
                after.append(self.cells(value, arg["board"][0]))
            elif "grid" in arg:
                try:
                    after.append(Encoder().encode(value, 0))
                except BaseException:
                    after.append(None)
            else:
                after.append(None)
        answer["after"] = after
        return answer

    def answer(self, function, args):
        """Call ``function(*args)``: the answer, the value encoded or the exception described.

        The call's time runs until the answer or the exception is read: their __repr__ and
        __str__ are the student's code too. The parent measures it from outside."""
        try:
            result = function(*args)
            return {"status": "ok", "answer": Encoder().encode(result, 0)}
        except BaseException as exc:
            try:
                return {"status": "error", "error": self.describe(exc)}
            except BaseException as again:  # e.g. KeyboardInterrupt raised by a __str__
                return {"status": "error", "error": "%s: <while describing %s>" % (
                    _type_name(type(again)), _type_name(type(exc)))}

    def calls(self, request):
        """A batch: each item called in turn, as ``call`` would, answered together."""
        answers = []
        for dim, cells, player, reverse in request["items"]:
            answers.append(self.call({"fn": request["fn"], "dim": dim, "cells": cells,
                                      "player": player, "reverse": reverse,
                                      "trials": request["trials"]}))
            _flush_stdio()
        return {"status": "calls", "answers": answers}

    def cells(self, board, dim):
        """The board's cells now, read past any method the student replaced."""
        try:
            if self.cells_slot is not None:
                cells = self.cells_slot.__get__(board)
            else:
                cells = [self.square(board, r, c) for r in range(dim) for c in range(dim)]
            if (_type_name(type(cells)) == "list" and len(cells) == dim * dim
                    and all(type(v) is int for v in cells)):
                return cells
        except BaseException:
            pass
        return None

    def describe(self, exc):
        """'Type: message', then the last few frames of the student's files (the submission
        and its helper modules, beside it in the box), Python-style."""
        lines = ["%s: %s" % (_type_name(type(exc)), _text(exc))]
        frames = []
        innermost = None
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            innermost = (code.co_filename, tb.tb_lineno, code.co_name)
            if os.path.dirname(code.co_filename) == self.box:
                frames.append(innermost)
            tb = tb.tb_next
        shown = []
        for frame in frames[-TB_FRAMES:]:
            if shown and shown[-1][0] == frame:
                shown[-1][1] += 1
            else:
                shown.append([frame, 0])
        if shown:
            names = dict.fromkeys(os.path.basename(frame[0]) for frame, _ in shown)
            lines.append("Traceback (last lines in %s):" % " and ".join(names))
        for (filename, number, function), repeated in shown:
            lines.append('  File "%s", line %d, in %s' % (os.path.basename(filename),
                                                          number, function))
            text = self._line(number, filename)
            if text:
                lines.append("    " + text)
            if repeated:
                lines.append("  [previous line repeated %d more times]" % repeated)
        if innermost is not None and os.path.dirname(innermost[0]) != self.box:
            filename, number, function = innermost
            parts = filename.replace("\\", "/").split("/")
            lines.append("  (raised in %s, line %d, in %s)" % ("/".join(parts[-2:]), number,
                                                              function))
        return "\n".join(lines)


def _text(exc):
    try:
        text = str(exc)
    except BaseException:
        text = "<the exception's message could not be printed>"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def _module_name(filename):
    stem = filename[:-3] if filename.endswith(".py") else filename.rpartition(".")[0] or filename
    if (stem.isidentifier() and stem not in sys.modules and stem not in SHIM_NAMES
            and stem not in getattr(sys, "stdlib_module_names", ())):
        return stem
    return "submission"



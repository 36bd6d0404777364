"""The worker: runs INSIDE the sandbox, imports one submission and answers calls.

:mod:`grader.sandbox` starts it; nobody else should::

    python -I -S -B -c "import sys; sys.path[0:0] = [sys.argv[1]]; import worker; \
                        worker.main(sys.argv[2])" GRADER_DIR CONFIG_JSON

Standard library only, and small: it builds a fresh board for each call, calls the student's
function and reports raw facts (the answer with exact type tags, the board's cells afterwards,
the exception). Judging and timing are the parent's job: it measures this process's CPU time
from outside (/proc) and stops a call that goes past its limit, so nothing the student patches
in here can change a time. The parent trusts nothing that comes back.

Before the submission is loaded, the parent may ask for the *reference* (op "ref"): a plain
minimax (clone at every step, no pruning) on :class:`CourseBoard`, a board written like the
course's original. It times that search from outside too, in this very process, so the limits
and the calls they judge see the same machine, load and interpreter. One JSON line per request arrives on a private pipe,
one JSON line per answer leaves on another, echoing the request's token; the student's
stdout and stderr go to a separate pipe, so printing can never clog the answers.

Before the first line of the submission runs, the worker hides its two pipe ends above
descriptor 1024, then sheds what it can (each step where the system has it): no new
privileges; the sandbox's own uid (when started as root); Landlock (what it may read and
write, no TCP, no signal outside the sandbox); rlimits. The hello message says which held.
"""

import builtins
import json
import os
import resource
import signal
import sys

MAX_REQUEST = 1 << 20   # bytes in one request line
MAX_NODES = 400         # values encoded per answer; the rest is cut
MAX_ITEMS = 64          # items of one tuple or list
MAX_DEPTH = 8           # nesting of tuples and lists
MAX_TEXT = 300          # characters of a str answer or of a repr
MAX_MESSAGE = 2000      # characters of an exception message
TB_FRAMES = 5           # frames of the student's file shown in an error
SHIM_NAMES = frozenset({"provided", "poc_ttt_provided", "poc_ttt_gui", "codeskulptor",
                        "simplegui", "worker"})

# Our own references, taken before any student code can replace the module attributes.
_write = os.write
_exit = os._exit
_dumps = json.dumps
_loads = json.loads
_type_name = type.__dict__["__name__"].__get__
_type_module = type.__dict__["__module__"].__get__


class _State:
    """The answer channel's descriptor (hidden above 1024, see _fd_range)."""

    ans_fd = -1


def main(config_text):
    """Set the process up, then serve requests until the parent closes the pipe."""
    config = json.loads(config_text)
    sys.argv[:] = [config["file"]]  # the channel's fd numbers are not the student's business
    low, high = _fd_range()
    req_fd = _hide_fd(config["req"], low, high)
    _State.ans_fd = _hide_fd(config["ans"], low, high)
    _close_all_but((req_fd, _State.ans_fd), high)  # bubblewrap's info pipe, for one
    here = os.path.dirname(os.path.abspath(__file__))  # the grader's folder: not for students
    sys.path[:] = [p for p in sys.path if p and p != here] + config["path"] + [config["box"]]
    # Now, before Landlock hides the folder that holds provided (the grader's folder too).
    import provided.game  # noqa: F401
    hello = {"status": "ready", "nnp": _no_new_privileges()}
    if config.get("uid") is not None:
        # Root (inside bubblewrap, or the fallback run as root): become the sandbox's own
        # uid for good before the first line of student code. This clears every capability,
        # except, when that uid could not read the Python installation, reading past file
        # permissions (CAP_DAC_READ_SEARCH); Landlock then limits what may be read.
        try:
            hello["read_cap"] = _become(config["uid"], config["gid"], config.get("read_cap"))
        except OSError as exc:  # no CAP_SETUID (a container that dropped it): stay root
            hello["uid_error"] = str(exc)
    try:
        hello["landlock"] = _landlock(config.get("landlock"))
    except OSError as exc:  # nothing was restricted: restrict_self is the only step that does
        hello["landlock"], hello["landlock_error"] = 0, str(exc)
    hello["rlimits"] = _set_rlimits(config["rlimits"])
    hello["uid"] = os.getuid()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long file write fails, not kills
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr = sys.stdout  # one buffered stream: cheap, and the parent sees prints in order
    if not hasattr(builtins, "exit"):  # -S skipped site, which defines exit() and quit()
        builtins.exit = builtins.quit = _quit
    server = _Server(config, os.fdopen(req_fd, "rb"))
    server.serve(hello)


def _fd_range():
    """Where the channel's descriptors hide: above 1024 when the hard limit allows, so that
    a student's ``os.closerange(3, 1024)`` (an old daemon idiom) leaves them alone."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    high = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if high > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (high, hard))
        except (ValueError, OSError):
            high = soft
    return high // 2, high


def _hide_fd(fd, low, high):
    """Move a pipe end to a random free descriptor in [low, high), closed on exec."""
    while True:
        target = low + int.from_bytes(os.urandom(2), "little") % (high - low)
        try:
            os.fstat(target)
        except OSError:
            break
    os.dup2(fd, target, inheritable=False)
    os.close(fd)
    return target


def _close_all_but(keep, high):
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, high)


# -- privileges (Linux; each step is skipped where the system lacks it) ----------------------

PR_SET_KEEPCAPS = 8
PR_SET_NO_NEW_PRIVS = 38
CAP_DAC_READ_SEARCH = 2
_CAP_VERSION_3 = 0x20080522


def _libc():
    import ctypes
    return ctypes, ctypes.CDLL(None, use_errno=True)


def _no_new_privileges():
    """No setuid binary or file capability can give this process (or its children) more
    rights than it has; Landlock requires it. Returns whether it is in force."""
    try:
        ctypes, libc = _libc()
        return libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _become(uid, gid, read_cap):
    """setgroups/setgid/setuid to the sandbox's uid; with ``read_cap``, keep only
    CAP_DAC_READ_SEARCH. Returns whether that capability was kept."""
    os.setgroups([])
    os.setgid(gid)
    if not read_cap:
        os.setuid(uid)
        return False
    ctypes, libc = _libc()
    if libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_KEEPCAPS) failed")
    os.setuid(uid)  # the permitted set survives; the effective set is cleared
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    bit = 1 << CAP_DAC_READ_SEARCH
    data = (ctypes.c_uint32 * 6)(bit, bit, 0, 0, 0, 0)  # effective, permitted, inheritable
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    return True


# Landlock (Linux 5.13+): access rights, as in <linux/landlock.h>.
_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446   # the same on every architecture
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_REMOVE_DIR, _FS_REMOVE_FILE, _FS_MAKE_DIR, _FS_MAKE_REG = 1 << 4, 1 << 5, 1 << 7, 1 << 8
_FS_MAKE_SOCK, _FS_MAKE_FIFO, _FS_MAKE_SYM = 1 << 9, 1 << 10, 1 << 12
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_FS_WRITE = (_FS_WRITE_FILE | _FS_REMOVE_DIR | _FS_REMOVE_FILE | _FS_MAKE_DIR | _FS_MAKE_REG
             | _FS_MAKE_SOCK | _FS_MAKE_FIFO | _FS_MAKE_SYM | _FS_REFER | _FS_TRUNCATE)
_FS_ON_FILES = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV


def _landlock(rules):
    """Allow reading only beneath ``rules["read"]`` and writing only beneath
    ``rules["write"]``; with ABI 4+ no TCP bind or connect, with ABI 6+ no signal to a
    process outside the sandbox. Returns the ABI version in force, or 0."""
    if not rules:
        return 0
    try:
        ctypes, libc = _libc()
        syscall = libc.syscall
        syscall.restype = ctypes.c_long
        abi = syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    if abi < 1:
        return 0
    handled = (_FS_REFER << 1) - 1 if abi >= 2 else _FS_REFER - 1
    handled |= (_FS_TRUNCATE if abi >= 3 else 0) | (_FS_IOCTL_DEV if abi >= 5 else 0)
    net = 0b11 if abi >= 4 else 0       # bind and connect TCP: no rule allows either
    scoped = 0b11 if abi >= 6 else 0    # abstract unix sockets and signals
    attr = (ctypes.c_uint64 * 3)(handled, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = syscall(_LL_CREATE, attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    try:
        for paths, rights in ((rules.get("read", ()), _FS_READ),
                              (rules.get("write", ()), _FS_READ | _FS_WRITE)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # not on this machine
                try:
                    allowed = rights & handled
                    if not os.path.isdir(path):
                        allowed &= _FS_ON_FILES
                    rule = PathBeneath(allowed, fd)
                    if syscall(_LL_ADD_RULE, ruleset, 1, ctypes.byref(rule),
                               ctypes.c_uint32(0)) != 0:
                        raise OSError(ctypes.get_errno(), "landlock_add_rule failed: " + path)
                finally:
                    os.close(fd)
        if syscall(_LL_RESTRICT, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi


def _set_rlimits(wanted):
    applied = []
    for name, value in wanted.items():
        which = getattr(resource, "RLIMIT_" + name, None)
        if which is None:
            continue
        try:
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
            applied.append(name)
        except (ValueError, OSError):
            pass
    return applied


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
        self.namespace = {}
        self.lines = []
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
                answer = self.load()
            elif request["op"] == "ref":
                answer = reference(request) if not self.loaded else {"status": "refused"}
            else:
                answer = self.call(request)
            _flush_stdio()
            answer["tok"] = token
            _send(answer)

    # -- loading -------------------------------------------------------------------------

    def load(self):
        self.loaded = True
        # The same sequence of random numbers in every run: a submission that breaks ties at
        # random gets the same answers, so the same grade, every time.
        import random
        random.seed(0)
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
        name = _module_name(os.path.basename(self.path))
        module = type(sys)(name)
        module.__file__ = self.path
        module.__builtins__ = builtins
        sys.modules[name] = module
        self.namespace = module.__dict__
        calls = []
        restore = _pause_games(calls)
        try:
            exec(code, self.namespace)
        except SystemExit as exc:
            return dict(self._where(exc), status="load_error", kind="exit",
                        message="SystemExit: %s" % _text(exc))
        except BaseException as exc:
            return dict(self._where(exc), status="load_error", kind="import_error",
                        message=self.describe(exc))
        finally:
            restore()
        if not callable(self.namespace.get("mm_move")):
            found = self.namespace.get("mm_move", None)
            return {"status": "load_error", "kind": "no_function", "line": None, "text": "",
                    "message": "mm_move is %s" % ("missing" if found is None
                                                  else "a " + _type_name(type(found))),
                    "functions": self._functions()}
        return {"status": "loaded", "calls": calls, "module": name}

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

    def _line(self, number):
        if number is None or not 0 < number <= len(self.lines):
            return ""
        return self.lines[number - 1].strip()[:MAX_TEXT]

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
        # The call's time runs until the answer or the exception is read: their __repr__ and
        # __str__ are the student's code too. The parent measures it from outside.
        try:
            result = function(*args)
            answer = {"status": "ok", "answer": _Encoder().encode(result, 0)}
        except BaseException as exc:
            try:
                answer = {"status": "error", "error": self.describe(exc)}
            except BaseException as again:  # e.g. KeyboardInterrupt raised by a __str__
                answer = {"status": "error", "error": "%s: <while describing %s>" % (
                    _type_name(type(again)), _type_name(type(exc)))}
        answer["board"] = self.cells(board, dim)
        return answer

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
        """'Type: message', then the last few frames of the student's file, Python-style."""
        lines = ["%s: %s" % (_type_name(type(exc)), _text(exc))]
        frames = []
        innermost = None
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            innermost = (code.co_filename, tb.tb_lineno, code.co_name)
            if code.co_filename == self.path:
                frames.append(innermost)
            tb = tb.tb_next
        shown = []
        for frame in frames[-TB_FRAMES:]:
            if shown and shown[-1][0] == frame:
                shown[-1][1] += 1
            else:
                shown.append([frame, 0])
        if shown:
            lines.append("Traceback (last lines in %s):" % os.path.basename(self.path))
        for (_, number, function), repeated in shown:
            lines.append('  File "%s", line %d, in %s' % (os.path.basename(self.path),
                                                          number, function))
            text = self._line(number)
            if text:
                lines.append("    " + text)
            if repeated:
                lines.append("  [previous line repeated %d more times]" % repeated)
        if innermost is not None and innermost[0] != self.path:
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


def _pause_games(calls):
    """Make play_game and run_gui record-only while the submission is imported.

    Old course files call them at the top level; a game there would run at import.
    Returns the function that puts the real ones back.
    """
    import provided
    import provided.game
    import poc_ttt_gui

    def recorder(name):
        def pause(*args, **kwargs):
            calls.append(name)
        return pause

    saved = [(module, attr, getattr(module, attr))
             for module, attr in ((provided, "play_game"), (provided.game, "play_game"),
                                  (poc_ttt_gui, "run_gui"))]
    for module, attr, _ in saved:
        setattr(module, attr, recorder(attr))

    def restore():
        for module, attr, value in saved:
            setattr(module, attr, value)
    return restore


class _Encoder:
    """A return value as exact type-tagged JSON, bounded in size, depth and length.

    Only exact built-in types keep their tag (``type(x) is int``); anything else, subclasses
    included, is "other" with its type's name and a short repr, so an object whose __eq__
    claims equality is never taken for the value it imitates.
    """

    def __init__(self):
        self.nodes = 0

    def encode(self, value, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return {"t": "cut"}
        kind = type(value)
        if value is None:
            return {"t": "none"}
        if kind is bool:
            return {"t": "bool", "v": value}
        if kind is int:
            if value.bit_length() <= 256:
                return {"t": "int", "v": value}
            return {"t": "int", "bits": value.bit_length()}
        if kind is float:
            return {"t": "float", "v": repr(value)}
        if kind is str:
            node = {"t": "str", "v": value[:MAX_TEXT]}
            if len(value) > MAX_TEXT:
                node["more"] = len(value) - MAX_TEXT
            return node
        if kind is tuple or kind is list:
            if depth >= MAX_DEPTH:
                return {"t": "cut"}
            node = {"t": _type_name(kind),
                    "v": [self.encode(item, depth + 1) for item in value[:MAX_ITEMS]]}
            if len(value) > MAX_ITEMS:
                node["more"] = len(value) - MAX_ITEMS
            return node
        return self.other(value, kind, depth)

    def other(self, value, kind, depth):
        try:
            module = _type_module(kind)
            name = _type_name(kind)
            if type(module) is str and module != "builtins":
                name = module + "." + name
        except BaseException:
            name = "?"
        try:
            text = repr(value)
            text = text if type(text) is str else "?"
        except BaseException as exc:
            text = "<repr() raised %s>" % _type_name(type(exc))
        node = {"t": "other", "type": name[:MAX_TEXT], "repr": text[:MAX_TEXT]}
        # A subclass of a built-in also travels as its built-in value, read by the built-in's
        # own methods, so that a check may choose to be lenient.
        for base, plain in _PLAIN:
            if isinstance(value, base) and depth < MAX_DEPTH:
                try:
                    node["base"] = self.encode(plain(value), depth + 1)
                except BaseException:
                    pass
                break
        return node


_PLAIN = ((int, int.__int__), (float, float.__float__), (str, str.__str__),
          (tuple, lambda value: tuple(tuple.__iter__(value))),
          (list, lambda value: list(list.__iter__(value))))


# -- the reference: the slowest search a student reasonably writes ---------------------------

_EMPTY, _PLAYERX, _PLAYERO, _DRAW = 1, 2, 3, 4   # the course's values (COURSE_API.md)
_SCORES = {_PLAYERX: 1, _DRAW: 0, _PLAYERO: -1}


class CourseBoard:
    """The course's board as it was written: the same rules as ``provided.TTTBoard``, the
    original's speed (``check_win`` builds lists of lines, ``clone`` goes through the
    constructor). Time limits are multiples of a plain minimax on this board.

    >>> board = CourseBoard(3, False, [[2, 2, 2], [3, 3, 1], [1, 1, 1]])
    >>> board.check_win(), len(board.get_empty_squares())
    (2, 4)
    """

    def __init__(self, dim, reverse=False, board=None):
        self._dim = dim
        self._reverse = reverse
        if board is None:
            self._board = [[_EMPTY for _ in range(dim)] for _ in range(dim)]
        else:
            self._board = [[board[row][col] for col in range(dim)] for row in range(dim)]

    def get_dim(self):
        return self._dim

    def square(self, row, col):
        return self._board[row][col]

    def get_empty_squares(self):
        return [(row, col) for row in range(self._dim) for col in range(self._dim)
                if self._board[row][col] == _EMPTY]

    def move(self, row, col, player):
        if self._board[row][col] == _EMPTY:
            self._board[row][col] = player

    def check_win(self):
        board, dim = self._board, self._dim
        dimrng = range(dim)
        lines = []
        lines.extend(board)
        lines.extend([[board[row][col] for row in dimrng] for col in dimrng])
        lines.append([board[idx][idx] for idx in dimrng])
        lines.append([board[idx][dim - idx - 1] for idx in dimrng])
        for line in lines:
            if len(set(line)) == 1 and line[0] != _EMPTY:
                if self._reverse:
                    return _PLAYERO if line[0] == _PLAYERX else _PLAYERX
                return line[0]
        if len(self.get_empty_squares()) == 0:
            return _DRAW
        return None

    def clone(self):
        return CourseBoard(self._dim, self._reverse, self._board)


def plain_minimax(board, player):
    """A student's first minimax: (score, move, nodes visited), clone at every step.

    >>> plain_minimax(CourseBoard(2), _PLAYERX)
    (1, (0, 0), 41)
    """
    winner = board.check_win()
    if winner is not None:
        return _SCORES[winner], (-1, -1), 1
    best_score, best_move, nodes = None, (-1, -1), 1
    other = _PLAYERO if player == _PLAYERX else _PLAYERX
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _, below = plain_minimax(child, other)
        nodes += below
        if best_score is None or (score > best_score if player == _PLAYERX
                                  else score < best_score):
            best_score, best_move = score, (row, col)
    return best_score, best_move, nodes


def reference(request):
    """Run the reference search on the requested position; the parent times it."""
    dim, cells = request["dim"], request["cells"]
    board = CourseBoard(dim, request["reverse"], [cells[r * dim:r * dim + dim]
                                                  for r in range(dim)])
    score, _, nodes = plain_minimax(board, request["player"])
    return {"status": "ref", "score": score, "nodes": nodes}

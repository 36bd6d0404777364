"""Reading a submission and saying why it cannot be run, in words a student can act on.

:func:`read_submission` reads the bytes and decodes them (runs nothing); :func:`load_error`
turns what the worker reported about a failed import into a :class:`LoadError` whose
message says what to change (a Python 2 line and its fix, a missing function, an exit).

>>> read_submission(Path("/nonexistent/mm.py"))
Traceback (most recent call last):
...
grader.sandbox.submission.LoadError: there is no file /nonexistent/mm.py
"""

from __future__ import annotations

import ast
import threading
import warnings
from pathlib import Path

from grader.sandbox.protocol import text_of
from provided.course import course_module, provided_aliases
from provided.python2 import import_hint, python2_fix, python2_hint, python2_message
from provided.source import SourceError, read_source

_COMPILING = threading.Lock()   # warnings' filters are global: one compile at a time

LOAD_ERROR_KINDS = ("missing", "not_a_file", "too_large", "empty", "binary", "encoding",
                    "syntax", "python2", "import_error", "exit", "timeout", "no_function")


# How the report names a missing function: the course's signatures.
SIGNATURES = {"mm_move": "mm_move(board, player)", "mc_trial": "mc_trial(board, player)",
              "mc_update_scores": "mc_update_scores(scores, board, player)",
              "get_best_move": "get_best_move(board, scores)",
              "mc_move": "mc_move(board, player, trials)"}


def load_error(message: dict, lines: list[str]) -> "LoadError":
    """The LoadError of the worker's report on a failed import; ``lines``: the file's."""
    kind = message.get("kind")
    line = message.get("line") if type(message.get("line")) is int else None
    text = ""
    if line is not None and 0 < line <= len(lines):
        text = lines[line - 1].strip()
    text = text or text_of(message.get("text"))
    detail = text_of(message.get("message"))
    if kind == "syntax":
        fix = python2_fix(text) if line is not None else None
        if fix is not None:
            return LoadError("python2", python2_message(line, text, fix, lines), line, text)
        where = f"line {line}: " if line is not None else ""
        shown = f"\n    {text}" if text else ""
        if detail.startswith("TabError"):
            shown += "\n-> indent with spaces only (4 per level), never with tabs"
        return LoadError("syntax", f"{where}{detail}{shown}", line, text)
    if kind == "import_error":
        hint = python2_hint(detail, text)
        if hint and detail.startswith("NameError"):
            return LoadError("python2", f"line {line}: {text}  -> {hint}\nThis file is "
                             "Python 2; the course runs Python 3.", line, text)
        hint = hint or import_hint(detail)
        where = f"line {line}: {text}\n" if line is not None else ""
        return LoadError("import_error", f"{where}importing the submission raised "
                         f"{detail}" + (f"\n-> {hint}" if hint else ""), line, text)
    if kind == "exit":
        where = f" at line {line}: {text}" if line is not None else ""
        return LoadError("exit", f"the submission called sys.exit() (or exit()/quit()) "
                         f"while being imported{where}; remove that call", line, text)
    if kind == "no_function":
        functions = message.get("functions")
        names = ", ".join(text_of(f) for f in functions) if type(functions) is list else ""
        found = f" (it defines: {names})" if names else " (it defines no functions)"
        name = text_of(message.get("name")) or "mm_move"
        required = message.get("required")
        wanted = [text_of(n) for n in required] if type(required) is list else [name]
        signatures = ", ".join(SIGNATURES.get(n, f"{n}(...)") for n in wanted)
        what = "the functions" if len(wanted) > 1 else "a function"
        return LoadError("no_function", f"the submission must define {what} {signatures}: "
                         f"{detail}{found}")
    return LoadError("exit", f"the worker reported an unknown problem: {detail}")


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


def course_imports(source: str) -> tuple[str, ...]:
    """The course's modules ``source`` imports, as it names them (it is not run): a file
    written for the course needs them provided to be imported anywhere but the sandbox.
    A module it imports as ``provided`` that is none of the course's (its own copy of the
    board module, ``import tictactoe_board as provided``) is given ``provided`` too
    (``provided.course.provided_aliases``), and named here last.

    >>> course_imports("import poc_ttt_provided as provided\\nimport math")
    ('poc_ttt_provided',)
    >>> course_imports("from provided import TTTBoard")
    ()
    >>> course_imports("import random\\nimport tictactoe_board as provided")
    ('tictactoe_board',)
    """
    found = [name for name in imports_of(source, members=True)
             if course_module(name) is not None]
    return tuple(dict.fromkeys(found + sorted(provided_aliases(source))))


_IMPORTERS = ("__import__", "import_module")   # calls whose first argument names a module


def imports_of(source: str, members: bool = False) -> list[str]:
    """The module paths ``source`` imports, in order (it is not run): ``import`` and
    ``from ... import`` (not relative ones; with ``members``, ``from a import b`` gives
    ``a.b`` too), and ``__import__("name")`` or ``importlib.import_module("name")`` with
    the name written out. Nothing when it does not parse.

    >>> imports_of("import a.b, c\\nfrom d import e\\nfrom . import f\\n"
    ...            "m = importlib.import_module('g')\\n")
    ['a.b', 'c', 'd', 'g']
    >>> imports_of("from d import e", members=True)
    ['d', 'd.e']
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            if members:
                names += [f"{node.module}.{alias.name}" for alias in node.names]
        elif (isinstance(node, ast.Call) and node.args and _called(node.func) in _IMPORTERS
              and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            names.append(node.args[0].value)
    return list(dict.fromkeys(names))


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def read_submission(path: Path) -> tuple[bytes, str]:
    """Read a submission's bytes and decode them, or raise LoadError. Runs nothing. The
    rule and its words are ``provided.source``'s: ``python -m student check`` refuses the
    same files in the same words.

    >>> read_submission(Path("/nonexistent/mm.py"))
    Traceback (most recent call last):
    ...
    grader.sandbox.submission.LoadError: there is no file /nonexistent/mm.py
    """
    try:
        return read_source(path)
    except SourceError as problem:
        raise LoadError(problem.kind, problem.message, problem.line) from None


def compile_error(data: bytes, name: str) -> LoadError | None:
    """The LoadError the grader's report gives a file that does not compile (a Python 2
    line and its fix, or Python's own message), or None when it compiles. It compiles
    ``data`` as the sandbox's worker does (``grader/sandbox/inside/worker.py``) and words
    the failure with :func:`load_error`, so the submission page refuses, before storing
    it, a hand-in the grader could only give 0, in the report's words. Runs nothing.

    >>> print(compile_error(b'def mm_move(board, player):\\n    print "hi"\\n', "a.py"))
    line 2: print "hi"  -> write print("hi")
    This file is Python 2; the course runs Python 3.
    >>> compile_error(b"def mm_move(board, player):\\n    return 0, (-1, -1)\\n", "a.py") is None
    True
    """
    lines = data.decode("utf-8", "replace").splitlines()
    try:
        with _COMPILING, warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "invalid escape sequence" and the like
            compile(data, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return load_error({"kind": "syntax", "line": exc.lineno,
                           "text": (exc.text or "").rstrip("\n"),
                           "message": f"{type(exc).__name__}: {exc.msg}"}, lines)
    except (ValueError, MemoryError, RecursionError) as exc:   # NUL bytes, nesting too deep
        return load_error({"kind": "syntax", "line": None, "text": "",
                           "message": f"{type(exc).__name__}: {exc}"}, lines)
    return None

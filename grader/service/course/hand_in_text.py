"""What runs in the child that checks a hand-in's text (:mod:`checking` starts it): decode
and compile the bytes as the grader does, and name what the file defines. Nothing of the
file is imported or run. It sets its own limits before it reads a byte, and imports only
the standard library and ``provided.source``, so that it starts in a few tens of
milliseconds.

    python -m grader.service.course.hand_in_text CPU_SECONDS MEMORY_BYTES FILENAME < file

answers one line of JSON on stdout: ``{"defined": [names]}``, or ``{"problem": {"kind",
"line", "text", "message"}}`` (what the grader's report would say of a file it cannot
read); it exits with :data:`MEMORY_ERROR_EXIT` when it ran out of memory outside the
compiler, and is killed by SIGXCPU (then SIGKILL) past its CPU time.

>>> examine(b"def mm_move(board, player):\\n    return 0, (-1, -1)\\n", "a.py")
{'defined': ['mm_move']}
>>> examine(b"def mm_move(board, player):\\n    print board\\n", "a.py")["problem"]["kind"]
'syntax'
"""

from __future__ import annotations

import ast
import json
import os
import resource
import sys
import warnings
from typing import Any

from provided.source import SourceError, decode_source

MEMORY_ERROR_EXIT = 3                            # the child ran out of its memory


def examine(data: bytes, filename: str) -> dict[str, Any]:
    """Decode and compile ``data`` as the grader does (nothing runs): ``{"problem": ...}``
    in the grader's terms (``grader.sandbox.submission.compile_error``'s: the parser's
    MemoryError on code nested too deeply is a problem of the file), else
    ``{"defined": [names]}``."""
    try:
        decode_source(data, filename)
    except SourceError as problem:
        return {"problem": {"kind": problem.kind, "line": problem.line, "text": "",
                            "message": problem.message}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # "invalid escape sequence" and the like
            tree = compile(data, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return {"problem": {"kind": "syntax", "line": exc.lineno,
                            "text": (exc.text or "").rstrip("\n"),
                            "message": f"{type(exc).__name__}: {exc.msg}"}}
    except (ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, nesting too deep
        return {"problem": {"kind": "syntax", "line": None, "text": "",
                            "message": f"{type(exc).__name__}: {exc}"}}
    return {"defined": sorted(defined_names(tree))}


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level, read from its tree: functions, classes,
    assignments and imports, also inside ``if``/``try``/``with``/loops (never inside a
    function or a class). Generous on purpose: a file is refused for a missing function
    only when it surely lacks it.

    >>> sorted(defined_names(ast.parse("import a.b as c, d.e\\nif 1:\\n    def f(): x = 1\\n")))
    ['c', 'd', 'f']
    """
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.stmt, ast.excepthandler)):
                    pending.append(child)
                else:
                    names.update(one.id for one in ast.walk(child)
                                 if isinstance(one, ast.Name) and isinstance(one.ctx, ast.Store))
    return names


def _limit_myself(cpu_seconds: int, memory_bytes: int) -> None:
    """The child's limits, set before it reads a byte of the hand-in."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))           # SIGXCPU dumps no core
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))          # it writes no file
    # No nice: it runs in the web process's own session, whose busy threads would starve a
    # niced check in a rush (every hand-in waits for one); one check at a time leaves a
    # core to the pages, and the graders (their sessions lowered) yield to both.


def main(argv: list[str]) -> int:
    """The child's command: the hand-in on stdin, the answer on stdout."""
    _limit_myself(int(argv[0]), int(argv[1]))
    data = sys.stdin.buffer.read()
    try:
        answer = examine(data, argv[2])
    except MemoryError:
        return MEMORY_ERROR_EXIT
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

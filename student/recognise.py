"""Which assignment a file is for, from the functions it defines (read, never run): what
``python -m student check`` and ``python -m student submit`` both go by, as the grader does.

    assignment_of(Path("student/mc_player.py"))     # 'montecarlo'

Standard library only: the handout installs nothing, and never ships the grader.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

MINIMAX, MONTECARLO = "minimax", "montecarlo"   # the assignments' names (scripts use them)
_HERE = Path(__file__).resolve().parent


def assignment_of(path: Path) -> str:
    """Which assignment a file is for, from the functions it defines (read, never run):
    ``mm_move`` is the minimax; else ``mc_move`` or ``mc_trial`` the Monte Carlo player;
    anything else (or a file that cannot be read) the minimax, as before there were two.

    >>> assignment_of(_HERE / "mc_player.py"), assignment_of(_HERE / "mm_player.py")
    ('montecarlo', 'minimax')
    """
    return recognised(path) or MINIMAX


def recognised(path: Path) -> str | None:
    """The assignment whose functions the file defines (as :func:`assignment_of`), or None
    when it defines none of them or cannot be read.

    >>> recognised(_HERE / "__init__.py") is None
    True
    """
    try:
        source = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None
    try:
        names = {node.name for node in ast.parse(source).body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    except (SyntaxError, ValueError):   # Python 2, say: its def lines still name them
        names = set(re.findall(r"^def\s+(\w+)\s*\(", source, flags=re.MULTILINE))
    if "mm_move" in names:
        return MINIMAX
    if names & {"mc_move", "mc_trial"}:
        return MONTECARLO
    return None

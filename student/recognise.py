"""Which assignment a file is for, from the functions it defines (read, never run), as the
grader recognises it (``grader.assignments.registry``): what ``python -m student submit``
goes by. (``python -m student check`` asks the grader's ``choose`` itself.)

    assignment_of(Path("student/mc_player.py"))     # 'montecarlo'
"""

from __future__ import annotations

from pathlib import Path

MINIMAX, MONTECARLO = "minimax", "montecarlo"   # the course's two assignments' names
_HERE = Path(__file__).resolve().parent


def assignment_of(path: Path) -> str:
    """The assignment the file is for (:func:`recognised`), else the grader's default (the
    minimax), as ``python -m grader grade`` chooses.

    >>> assignment_of(_HERE / "mc_player.py"), assignment_of(_HERE / "mm_player.py")
    ('montecarlo', 'minimax')
    """
    from grader.assignments.registry import DEFAULT
    return recognised(path) or DEFAULT


def recognised(path: Path) -> str | None:
    """The name of the assignment whose functions the file defines the most of (read,
    never run), as the grader recognises it; None when it defines none of any assignment's
    functions, or cannot be read.

    >>> recognised(_HERE / "__init__.py") is None
    True
    """
    from grader.assignments.registry import recognise
    try:
        source = path.read_bytes()[:1 << 20].decode("utf-8", errors="replace")
    except OSError:
        return None
    found = recognise(source)
    return found.name if found is not None else None

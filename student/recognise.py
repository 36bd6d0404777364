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
    """The name of the assignment whose functions the file defines the most of (read, never
    run), as the grader recognises it; the grader's default (the minimax) for a file that
    defines none of them, or cannot be read.

    >>> assignment_of(_HERE / "mc_player.py"), assignment_of(_HERE / "mm_player.py")
    ('montecarlo', 'minimax')
    """
    from grader.assignments.registry import DEFAULT, recognise
    try:
        source = path.read_bytes()[:1 << 20].decode("utf-8", errors="replace")
    except OSError:
        return DEFAULT
    found = recognise(source)
    return found.name if found is not None else DEFAULT

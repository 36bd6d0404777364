"""Which assignments there are, and which one a file is for.

The course's two are built in (``minimax``, ``montecarlo``); an instructor's own comes from
an installed package that declares an entry point in the group ``grader.assignments``,
whose object is an :class:`~grader.assignments.assignment.Assignment` (or a function
without arguments that returns one)::

    [options.entry_points]
    grader.assignments =
        connect3 = my_course.connect3:assignment

An entry point that fails to load, or does not give an Assignment, is left out and said
why (:func:`problems`): it costs no student anything, and the staff are told.

>>> [a.name for a in available()][:2]
['minimax', 'montecarlo']
>>> recognise("def mc_move(board, player, trials):\\n    pass\\n").name
'montecarlo'
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re

from grader.assignments.assignment import Assignment, AssignmentError

GROUP = "grader.assignments"
DEFAULT = "minimax"   # a file that names no assignment's function is graded as before


@functools.lru_cache(maxsize=None)
def _load() -> tuple[dict[str, Assignment], tuple[str, ...]]:
    from grader.assignments.minimax import assignment as minimax
    from grader.assignments.montecarlo import assignment as montecarlo
    found = {minimax.name: minimax, montecarlo.name: montecarlo}
    problems = []
    for entry in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):
        try:
            value = entry.load()
            if callable(value) and not isinstance(value, Assignment):
                value = value()
        except Exception as exc:  # noqa: BLE001 - someone else's package: say, do not crash
            problems.append(f"the assignment {entry.name} ({entry.value}) failed to load: "
                            f"{type(exc).__name__}: {exc}")
            continue
        if not isinstance(value, Assignment):
            problems.append(f"the assignment {entry.name} ({entry.value}) is a "
                            f"{type(value).__name__}, not a grader.assignments.Assignment")
        elif value.name in found and found[value.name] is not value:
            problems.append(f"the assignment {entry.name} ({entry.value}) is named "
                            f"{value.name!r}, which another assignment already is")
        else:
            found[value.name] = value
    return found, tuple(problems)


def available() -> list[Assignment]:
    """Every assignment that loaded, the course's two first."""
    return list(_load()[0].values())


def problems() -> tuple[str, ...]:
    """Why each assignment that did not load was left out."""
    return _load()[1]


def get(name: str) -> Assignment:
    """The assignment of that name; AssignmentError naming the ones there are.

    >>> get("chess")
    Traceback (most recent call last):
    ...
    grader.assignments.assignment.AssignmentError: there is no assignment 'chess'; the assignments are: minimax, montecarlo
    """
    found = _load()[0]
    if name not in found:
        why = "".join(f"\n{problem}" for problem in problems())
        raise AssignmentError(f"there is no assignment {name!r}; the assignments are: "
                              + ", ".join(found) + why)
    return found[name]


# A top-level definition, read from the text alone: "def name(", "class name", "name =".
_TOP_LEVEL = re.compile(r"^(?:(?:async\s+)?def\s+(\w+)\s*\(|class\s+(\w+)|(\w+)\s*=(?!=))",
                        re.MULTILINE)


def defined_names(source: str) -> set[str]:
    """The names a file defines at its top level (functions, classes, assignments), read
    without running it. A file that does not parse (Python 2, a syntax error, a text cut
    short because it is too large) is read line by line instead: what its top-level
    ``def``, ``class`` and assignment lines name.

    >>> sorted(defined_names("X = 1\\ndef f():\\n    pass\\n"))
    ['X', 'f']
    >>> sorted(defined_names("def mc_move(board, player, trials):\\n    print board\\n"))
    ['mc_move']
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {next(name for name in match.groups() if name)
                for match in _TOP_LEVEL.finditer(source)}
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def recognise(source: str) -> Assignment | None:
    """The assignment whose functions ``source`` defines the most of (the first one on a
    tie), or None when it defines none of any assignment's. A file that does not parse is
    read by its ``def`` lines (:func:`defined_names`): never run.

    >>> recognise("def mc_trial(board, player):\\n    print board\\n").name
    'montecarlo'
    """
    names = defined_names(source)
    best, count = None, 0
    for assignment in available():
        mine = len(names & set(assignment.recognise))
        if mine > count:
            best, count = assignment, mine
    return best


def choose(name: str | None, source: str) -> tuple[Assignment, str]:
    """The assignment to grade ``source`` as, and how it was chosen, for the report:
    ``name`` when given, else the one the file's functions say, else the default.

    >>> choose(None, "def mm_move(board, player):\\n    pass\\n")[1]
    'recognised from the functions it defines'
    """
    if name:
        return get(name), f"as the grader was told (--assignment {name})"
    found = recognise(source)
    if found is not None:
        return found, "recognised from the functions it defines"
    return get(DEFAULT), "the default: the file defines none of any assignment's functions"


__all__ = ["Assignment", "AssignmentError", "GROUP", "available", "choose", "get",
           "problems", "recognise"]

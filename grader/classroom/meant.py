"""Which assignment each file of a class is for: the one whose functions it defines, read
without running it, as ``python -m grader grade`` reads them.

A file that does not compile is still read for its ``def`` lines, and a file that defines
no function at all for its name (``mc_player.py``: the assignment's template's), so that a
broken file is graded, to 0 with its reason, as the assignment it was meant for. The rules
for a class (:func:`decide`): a class of one assignment grades a file that defines none of
its functions as that assignment; a class of several cannot tell whose such a file is, so
it is not graded; ``batch --assignment NAME`` grades every file as NAME, except a file that
defines another assignment's functions: its student meant the other one, so it is not
graded. Nothing here grades, prints or writes.

>>> recognise_text("def mc_move(board, player, trials):\\n    pass\\n").assignment
'montecarlo'
>>> recognise_text("def mm_move(board, player):\\n    return (\\n").assignment  # no compile
'minimax'
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from grader.assignments import available, get, recognise
from grader.assignments.registry import DEFAULT

FUNCTIONS = "functions"      # what `grade` finds by itself: it need not be told
DEF_LINES = "def lines"      # a file that does not compile: its top-level def lines
FILE_NAME = "file name"      # a file that defines no function: its name is a template's
# The kinds of refusal (a not graded row's reason starts with one; the summary counts them).
OTHER_ASSIGNMENT = "for another assignment"
NO_ASSIGNMENT = "no assignment's functions"
READ_BYTES = 1 << 20         # as much of a file as `grade` reads to recognise it
_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.MULTILINE)
_CANVAS_COPY = re.compile(r"-\d+(?=\.py$)")   # Canvas renames a resubmitted mc_player.py


@dataclass(frozen=True)
class Recognised:
    """The assignment a file is for ("": none says), and what said it."""

    assignment: str = ""
    by: str = ""

    @property
    def told(self) -> bool:
        """Whether `grade` must be told the assignment (its functions alone would not say)."""
        return bool(self.assignment) and self.by != FUNCTIONS


def template_names() -> dict[str, str]:
    """Each assignment's template's file name -> the assignment.

    >>> template_names()["mc_player.py"]
    'montecarlo'
    """
    return {assignment.template.name: assignment.name for assignment in available()
            if assignment.template is not None}


def plain_name(file_name: str) -> str:
    """A file's name as its student gave it (Canvas's ``mm_player-1.py`` is ``mm_player.py``).

    >>> plain_name("mm_player-2.py")
    'mm_player.py'
    """
    return _CANVAS_COPY.sub("", file_name)


def recognise_text(text: str, file_name: str = "") -> Recognised:
    """The assignment ``text`` (a file called ``file_name``) is for.

    >>> recognise_text("x = 1\\n", "mc_player.py")
    Recognised(assignment='montecarlo', by='file name')
    >>> recognise_text("x = 1\\n", "notes.py")
    Recognised(assignment='', by='')
    """
    found = recognise(text)
    if found is not None:
        return Recognised(found.name, FUNCTIONS)
    names = set(_DEF.findall(text))
    best, count = "", 0
    for assignment in available():
        mine = len(names & set(assignment.recognise))
        if mine > count:
            best, count = assignment.name, mine
    if best:
        return Recognised(best, DEF_LINES)
    if not names:
        named = template_names().get(plain_name(file_name))
        if named:
            return Recognised(named, FILE_NAME)
    return Recognised()


def recognise_file(path: Path, file_name: str = "") -> Recognised:
    """The assignment the file at ``path`` is for (``file_name``: its own name, when the
    LMS put a prefix on it); none when it cannot be read."""
    try:
        with open(path, "rb") as file:
            text = file.read(READ_BYTES).decode("utf-8", "replace")
    except OSError:
        return Recognised()
    return recognise_text(text, file_name or Path(path).name)


@dataclass(frozen=True)
class Decision:
    """What a class does with one file: grade it as ``assignment`` (telling `grade` so when
    ``told``), or not, for the reason ``problem``."""

    assignment: str = ""
    told: bool = False
    problem: str | None = None


def decide(found: Recognised, given: str | None, in_class: Sequence[str]) -> Decision:
    """How a file the class's other files say ``in_class`` of is graded (``given``: the
    instructor's ``--assignment``).

    >>> decide(Recognised("montecarlo", FUNCTIONS), None, ["minimax", "montecarlo"])
    Decision(assignment='montecarlo', told=False, problem=None)
    >>> decide(Recognised(), None, ["montecarlo"])
    Decision(assignment='montecarlo', told=True, problem=None)
    >>> decide(Recognised(), None, ["minimax", "montecarlo"]).problem[:25]
    "no assignment's functions"
    >>> decide(Recognised("montecarlo", FUNCTIONS), "minimax", ["minimax"]).problem[:22]
    'for another assignment'
    """
    if given:
        if found.assignment and found.assignment != given:
            return Decision(given, True, _other_assignment(found.assignment, given))
        return Decision(given, True)
    if found.assignment:
        return Decision(found.assignment, found.told)
    if len(in_class) > 1:
        return Decision("", False, _no_assignment(in_class))
    only = in_class[0] if in_class else DEFAULT
    return Decision(only, only != DEFAULT)


def _functions(name: str) -> str:
    return ", ".join(get(name).functions)


def _other_assignment(other: str, given: str) -> str:
    return (f"{OTHER_ASSIGNMENT}: it defines the {other} assignment's functions "
            f"({_functions(other)}), not the {given} assignment's ({_functions(given)}); "
            f"grade it with --assignment {other}, or without --assignment")


def _no_assignment(in_class: Sequence[str]) -> str:
    each = "; ".join(f"{name}: {_functions(name)}" for name in in_class)
    return (f"{NO_ASSIGNMENT}: it defines the functions of none of this class's "
            f"assignments ({each}), so which one it is for cannot be told; grade it with "
            "--assignment NAME")


def in_order(names: Sequence[str]) -> list[str]:
    """``names`` without repeats, in the course's order of assignments (then any other).

    >>> in_order(["montecarlo", "minimax", "montecarlo"])
    ['minimax', 'montecarlo']
    """
    known = [assignment.name for assignment in available()]
    present = set(names) - {""}
    return [name for name in known if name in present] + sorted(present - set(known))


def sentence(graded: Sequence[str], refused: Sequence[str], given: str | None) -> str:
    """What a batch grades as what, in one sentence: ``graded`` holds the assignment of
    each file it grades, ``refused`` the reason kind (OTHER_ASSIGNMENT, NO_ASSIGNMENT) of
    each file it does not grade for its assignment.

    >>> sentence(["minimax", "montecarlo", "montecarlo"], [], None)
    'grading each file as the assignment whose functions it defines: minimax 1 file, montecarlo 2 files'
    >>> sentence(["minimax"] * 3, [OTHER_ASSIGNMENT], "minimax")
    "grading 3 files as the minimax assignment (--assignment minimax); 1 file defines another assignment's functions and is not graded"
    """
    counts = Counter(graded)
    names = in_order(list(counts))
    if given:
        said = f"grading {_files(len(graded))} as the {given} assignment (--assignment {given})"
    elif len(names) > 1:
        said = ("grading each file as the assignment whose functions it defines: "
                + ", ".join(f"{name} {_files(counts[name])}" for name in names))
    else:
        only = names[0] if names else DEFAULT
        said = f"grading {_files(len(graded))} as the {only} assignment"
    others = sum(kind == OTHER_ASSIGNMENT for kind in refused)
    if others:
        said += (f"; {_files(others)} define{'s' * (others == 1)} another assignment's "
                 f"functions and {'is' if others == 1 else 'are'} not graded")
    unknown = sum(kind == NO_ASSIGNMENT for kind in refused)
    if unknown:
        said += (f"; {_files(unknown)} define{'s' * (unknown == 1)} none of their "
                 f"functions and {'is' if unknown == 1 else 'are'} not graded "
                 "(--assignment NAME grades every file as NAME)")
    return said


def _files(count: int) -> str:
    return f"{count} file{'s' * (count != 1)}"

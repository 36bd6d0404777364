"""What an answer of ``mm_move`` may look like: one reading for the grader and ``check``.

An answer is first seen as *plain values*: exact built-in types stay themselves, anything
else (a subclass, an object whose ``__eq__`` claims anything) is an :class:`Opaque` that
shows itself as the student would read it (the grader's sandbox sends answers that way;
:func:`plain` does the same to a live object). :func:`read_answer` then reads
``(score, (row, col))``, forgiving a list for a tuple and ``1.0`` for ``1`` with a note, and
refusing a bool for a number. ``python -m student check`` and the grader accept exactly the
same answers, because both read them here.

>>> read_answer([0, [1, 2]]).notes
('a list was accepted where a tuple was expected',)
>>> read_answer(plain((1, (2, 2)))).move
(2, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from provided.bases import BUILTIN_BASES  # the grader's worker reads subclasses by it too

Move = tuple[int, int]
CUT = "..."                     # Opaque.type_name of the part of an answer left out
MAX_ITEMS = 64                  # items of one tuple or list looked at
MAX_DEPTH = 8                   # nesting looked at
MAX_TEXT = 300                  # characters of a repr kept


@dataclass(frozen=True)
class Opaque:
    """A returned value that is not an exact tuple/list/int/bool/float/None/str.

    ``base`` is the built-in value inside a subclass (a namedtuple's tuple), else None.

    It shows itself as the student would read it, inside a tuple too:

    >>> Opaque("Move", "Move(row=1, col=2)", (1, 2)) == (1, 2)
    False
    >>> (0, Opaque("Move", "Move(row=1, col=2)", (1, 2)))
    (0, Move(row=1, col=2) (a Move))
    """

    type_name: str
    repr: str
    base: object = None

    def __str__(self) -> str:
        if self.type_name == CUT:
            return self.repr
        return f"{self.repr} (a {self.type_name})"

    __repr__ = __str__


class BadAnswer(ValueError):
    """The answer is not a (score, (row, col)) pair of ints."""


@dataclass(frozen=True)
class Answer:
    """A well-formed answer, and what was forgiven to read it."""

    score: int
    move: Move
    notes: tuple[str, ...] = ()


def show(value: Any) -> str:
    """An answer as a student would read it: plain values as Python writes them."""
    return str(value) if isinstance(value, Opaque) else repr(value)


def read_answer(answer: Any) -> Answer:
    """Read ``(score, (row, col))``, forgiving a list for a tuple and 1.0 for 1.

    >>> read_answer([0, [1, 2]]).notes
    ('a list was accepted where a tuple was expected',)
    >>> read_answer(Opaque("Answer", "Answer(score=0, move=(1, 2))", (0, (1, 2)))).move
    (1, 2)
    >>> read_answer((True, (1, 2)))
    Traceback (most recent call last):
    ...
    provided.answers.BadAnswer: the score True is a bool; expected an int: 1, 0 or -1
    """
    notes: list[str] = []

    def pair(value: Any, what: str) -> tuple[Any, Any]:
        if isinstance(value, Opaque) and type(value.base) in (tuple, list):
            notes.append(f"a {value.type_name} was read as the {type(value.base).__name__} "
                         "it is made of")
            value = value.base
        if type(value) is list and len(value) == 2:
            notes.append("a list was accepted where a tuple was expected")
        elif type(value) is not tuple or len(value) != 2:
            raise BadAnswer(f"{what} should be a pair {_PAIR_SHAPES[what]}, got {show(value)}")
        return value[0], value[1]

    def whole(value: Any, what: str) -> int:
        if isinstance(value, Opaque) and type(value.base) is int:
            notes.append(f"a {value.type_name} was read as the int it is made of")
            return value.base
        if type(value) is int:
            return value
        if type(value) is float and value.is_integer():
            notes.append(f"the float {value!r} was accepted where an int was expected")
            return int(value)
        kind = type(value).__name__ if type(value) in (bool, float, str, type(None)) else "object"
        raise BadAnswer(f"{what} {show(value)} is a {kind}; expected an int{_WHOLE_HINTS[what]}")

    score, move = pair(answer, "the answer")
    score = whole(score, "the score")
    row, col = pair(move, "the move")
    move = (whole(row, "the row"), whole(col, "the column"))
    return Answer(score, move, tuple(dict.fromkeys(notes)))


_PAIR_SHAPES = {"the answer": "(score, (row, col))", "the move": "(row, col)"}


_WHOLE_HINTS = {"the score": ": 1, 0 or -1", "the row": "", "the column": ""}


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain values: what the grader's sandbox would send back for it.

    >>> from collections import namedtuple
    >>> plain((1, namedtuple("Move", "row col")(0, 2)))
    (1, Move(row=0, col=2) (a Move))
    """
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in (tuple, list) and depth < MAX_DEPTH:
        items = [plain(item, depth + 1) for item in value[:MAX_ITEMS]]
        return tuple(items) if kind is tuple else items
    try:
        text = repr(value)
        text = text if type(text) is str else "?"
    except Exception as exc:  # a broken __repr__ of the student's
        text = f"<repr() raised {type(exc).__name__}>"
    base = None
    for builtin, read in BUILTIN_BASES:
        if isinstance(value, builtin) and depth < MAX_DEPTH:
            try:
                base = plain(read(value), depth + 1)
            except Exception:
                pass
            break
    return Opaque(kind.__name__, text[:MAX_TEXT], base)

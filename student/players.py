"""The student's own players, as the console names them: what play and duel need to know.

    student.mm_player:move_wrapper    the minimax (student/mm_player.py)
    student.mc_player:mc_move         the Monte Carlo player (student/mc_player.py)

>>> ntrials_of("student.mc_player:mc_move")
1
>>> ntrials_of("perfect") is None
True
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from provided import console
from provided.board import EMPTY, PLAYERX, TTTBoard

STUDENT_PLAYER = "student.mm_player:move_wrapper"
MC_PLAYER = "student.mc_player:mc_move"

# How to ask each player whether it is written, at once: a call on a board so small that
# any written player answers immediately, and the unfilled template raises
# NotImplementedError. (function to load, its arguments)
_PROBES = {
    STUDENT_PLAYER: ("student.mm_player:mm_move", (TTTBoard(1, False, [[PLAYERX]]), PLAYERX)),
    MC_PLAYER: (MC_PLAYER, (TTTBoard(1, False, [[EMPTY]]), PLAYERX, 1)),
}


def not_written_message(spec: str) -> str | None:
    """What to do if ``spec`` is one of the student's players and still the unfilled
    template, before a game starts; None otherwise (or if another bug will show in the game).
    """
    if spec not in _PROBES:
        return None
    function_spec, arguments = _PROBES[spec]
    try:  # as the console imports it: course imports work, games started at import are skipped
        function = console.load_move_function(function_spec)
    except console.PlayerSpecError:  # the console reports import problems itself
        return None
    try:
        function(*(argument.clone() if isinstance(argument, TTTBoard) else argument
                   for argument in arguments))
    except NotImplementedError as exc:
        return f"Your player is not ready: {exc}"
    except Exception:  # other bugs show up in the game, with their traceback
        return None
    return None


def ntrials_of(spec: str) -> int | None:
    """The whole number ``NTRIALS = N`` of the file behind a player spec (read, not run), or
    None: a player that is not a module's function, or a file without it."""
    where, colon, _name = spec.rpartition(":")
    if not colon or not where:
        return None
    if where.endswith(".py"):
        path: Path | None = Path(where).expanduser()
    else:
        try:
            found = importlib.util.find_spec(where)
        except (ImportError, ValueError):
            return None
        path = Path(found.origin) if found and found.origin else None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8")) if path else None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    for node in tree.body if tree else ():
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "NTRIALS"
                and isinstance(node.value, ast.Constant) and type(node.value.value) is int
                and node.value.value >= 0):
            return node.value.value
    return None

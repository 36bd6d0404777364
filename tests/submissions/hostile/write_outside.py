"""Hostile: tries to write outside its box: a report beside the grader's (../results.json
from its working directory, the --json path itself, another student's result file), a
folder the test owns, a world-writable folder (/tmp), and the grader's own source folder;
then writes its own scratch files (allowed) and answers correctly.

Expected: every write outside the box fails (bubblewrap: read-only system, private /tmp;
Landlock: writes only beneath its scratch directory), the grader's reports are intact
and the score is 100.
"""
import os

import provided

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def solve(board, player):
    """A correct, memoised minimax: (score, (row, col))."""
    key = (repr(board), player)
    if key not in MEMO:
        winner = board.check_win()
        if winner is not None:
            MEMO[key] = SCORES[winner], (-1, -1)
        else:
            best = None
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                score = solve(child, switch_player(player))[0]
                if best is None or score * SCORES[player] > best[0] * SCORES[player]:
                    best = score, (row, col)
            MEMO[key] = best
    return MEMO[key]

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(provided.__file__)))
TARGETS = ["../results.json", "@JSON@", "@OTHER_RESULT@", "@SENTINEL@/pwned.txt",
           "@TMP_SENTINEL@", os.path.join(PROJECT, "grader", "pwned.txt"),
           os.path.join(os.environ.get("HOME", "."), "mine.txt"), "mine.txt"]
for target in TARGETS:
    try:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    except OSError:
        pass
    try:
        with open(target, "w") as file:
            file.write('{"score": 100, "tests": []}')
    except OSError:
        pass


def mm_move(board, player):
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

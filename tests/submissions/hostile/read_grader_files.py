"""Hostile: tries to read what is not its own: the grader's solver (the answer key), its
hidden checks (both assignments') and configuration by absolute path, another student's
submission in the same folder, the grader's environment and command line through /proc,
the --json report path, and /etc/shadow.

Expected: every read fails (bubblewrap shows only the system, Python and provided;
Landlock allows reads only beneath those and the box, and hides /proc), so it answers
correctly everywhere: score 100. Anything it managed to read would come back as an
exception on the 1x1 board whose message starts with "STOLEN:". (Without either, the
worker holds no capability and the grader refuses to run it unless file permissions keep
all of these out of its reach: tests/sandbox/test_confinement.py.)
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

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(provided.__file__)))
TARGETS = [os.path.join(PROJECT, "grader", "judge", "solver.py"),
           os.path.join(PROJECT, "grader", "suite", "test_rubric.py"),
           os.path.join(PROJECT, "grader", "assignments", "montecarlo", "test_montecarlo.py"),
           os.path.join(PROJECT, "grader", "default.cfg"),
           os.path.join(PROJECT, "setup.cfg"),
           "@OTHER@", "@JSON@", "/proc/%d/environ" % os.getppid(),
           "/proc/%d/cmdline" % os.getppid(), "/proc/1/environ", "/etc/shadow"]
STOLEN = []
for target in TARGETS:
    try:
        with open(target, "rb") as file:
            STOLEN.append("%s: %r" % (target, file.read(200)))
    except OSError:
        pass
try:
    STOLEN.append("listing: %r" % os.listdir(os.path.dirname("@OTHER@")))
except OSError:
    pass


def mm_move(board, player):
    if STOLEN and repr(board) == ONE_BY_ONE:
        raise RuntimeError("STOLEN: " + " | ".join(STOLEN))
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

"""Hostile: imports the grader's own solver (the answer key) and checks and answers
with them; if that fails, it answers a draw and the first empty square.

Expected: the grader cannot be imported from inside the sandbox (under bubblewrap it is
not there; in the fallback Landlock refuses to read it), so the answers are the wrong
fallback ones: well under 100. A score of 100 here would mean the answer key leaked.
"""
import sys

SOLVER = None
for attempt in ("grader.solver", "grader.checks", "grader.engine"):
    try:
        __import__(attempt)
        SOLVER = sys.modules["grader.solver"].Solver()
        print("imported", attempt)
    except BaseException as exc:
        print("cannot import", attempt, type(exc).__name__)
try:  # by path, past sys.path
    import provided
    import importlib.util
    import os
    here = os.path.dirname(os.path.dirname(os.path.abspath(provided.__file__)))
    spec = importlib.util.spec_from_file_location("stolen_solver",
                                                  os.path.join(here, "grader", "solver.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    SOLVER = module.Solver()
except BaseException as exc:
    print("cannot load the solver by path", type(exc).__name__)


def mm_move(board, player):
    if SOLVER is not None:
        raise RuntimeError("LEAKED: the grader's solver was imported")
    if board.check_win() is not None:
        return 0, (-1, -1)
    return 0, board.get_empty_squares()[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

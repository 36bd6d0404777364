"""The public checks of the Monte Carlo player (``python -m student check mc_player.py``).

About a dozen small positions, each asking ONE of the four functions, in a child process
(``student.mc_runner``) with a CPU limit, with ``random`` seeded by the check's own fixed
number before the call, so a file gets the same verdicts on every run. The verdicts are
those of ``provided.montecarlo``, the rules the grader judges by too.

>>> MC_CHECKS[0].call()
'board = TTTBoard(3, False, [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]); random.seed(1001); mc_trial(board, PLAYERX); print(board)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from provided.board import EMPTY, NAMES, PLAYERO, PLAYERX, TTTBoard
from provided.montecarlo import best_moves, expected_scores, trial_problem
from student.checks import ANSWER, ERROR, TIMEOUT, Limits, Reply, call_child

Move = tuple[int, int]
Grid = tuple[tuple[int, ...], ...]

MISSING = "missing"     # the file does not define the function
FUNCTIONS = ("mc_trial", "mc_update_scores", "get_best_move", "mc_move")
CPU_LIMIT = 5.0   # seconds of CPU time per check: a correct file needs a few hundredths

# What a check asks of its function's answer (see judge).
TRIAL, TRIALS_DIFFER, UPDATE, BEST, MOVE_EMPTY, MOVE_RIGHT = (
    "trial", "trials differ", "update", "best", "move empty", "move right")

STUCK_WHY = ("the call never returned: look for a loop that never ends (a while loop "
             "whose test does not depend on what it changes; mc_trial must stop as soon as "
             "board.check_win() is not None, on the board it plays on).")


@dataclass(frozen=True)
class McCheck:
    """One public check: one function, one board, its arguments, what to judge, and why."""

    name: str
    function: str
    judged: str              # TRIAL, UPDATE, ...: what is judged (see judge)
    grid: Grid
    seeds: tuple[int, ...]   # random.seed(seed) before each call; a call per seed
    why: str
    player: int | None = None
    scores: tuple[tuple[float, ...], ...] | None = None
    trials: int | None = None
    moves: frozenset[Move] = frozenset()   # MOVE_RIGHT: the squares accepted
    reverse: bool = False

    @property
    def dim(self) -> int:
        return len(self.grid)

    def board(self) -> TTTBoard:
        return TTTBoard(self.dim, self.reverse, self.grid)

    def call(self, seed: int | None = None) -> str:
        """Lines to paste into Python to make the call (after the imports that
        ``python -m student check`` names)."""
        seed = self.seeds[0] if seed is None else seed
        board, player = repr(self.board()), NAMES.get(self.player, "")
        scores = repr([list(row) for row in self.scores or ()])
        if self.function == "mc_trial":
            return (f"board = {board}; random.seed({seed}); mc_trial(board, {player}); "
                    "print(board)")
        if self.function == "mc_update_scores":
            return (f"scores = {scores}; mc_update_scores(scores, {board}, {player}); "
                    "print(scores)")
        if self.function == "get_best_move":
            return f"random.seed({seed}); get_best_move({board}, {scores})"
        return f"random.seed({seed}); mc_move({board}, {player}, {self.trials})"

    def request(self) -> dict:
        """What the child needs to make the calls (``student.mc_runner``)."""
        return {"function": self.function, "dim": self.dim, "reverse": self.reverse,
                "grid": [list(row) for row in self.grid], "player": self.player,
                "scores": [list(row) for row in self.scores] if self.scores else None,
                "trials": self.trials, "seeds": list(self.seeds)}


@dataclass(frozen=True)
class McVerdict:
    check: McCheck
    passed: bool
    problem: str = ""
    expected: str = ""
    received: str = ""
    details: str = ""
    notes: tuple[str, ...] = ()
    why: str = ""


X, O, E = PLAYERX, PLAYERO, EMPTY
_ZEROS3 = ((0.0, 0.0, 0.0),) * 3


def _empty(dim: int) -> Grid:
    return ((E,) * dim,) * dim


MC_CHECKS: tuple[McCheck, ...] = (
    McCheck("mc_trial: a game on the empty 3x3 board", "mc_trial", TRIAL, _empty(3), (1001,),
            "mc_trial plays on the board it is given until board.check_win() is not None: "
            "each move a random empty square, X and O alternating, player first.",
            player=X),
    McCheck("mc_trial: O to move on a board partly played", "mc_trial", TRIAL,
            ((X, E, E), (E, O, E), (X, E, E)), (1002,),
            "The trial goes on from the board as it is, with the given player (here O) "
            "moving first; the squares already played never change.", player=O),
    McCheck("mc_trial: different games over 5 seeds", "mc_trial", TRIALS_DIFFER, _empty(3),
            (1003, 1004, 1005, 1006, 1007),
            "Each move is chosen at random (random.choice(board.get_empty_squares())): five "
            "trials with five seeds play five games, not one. Do not call random.seed in "
            "mc_trial.", player=X),
    McCheck("mc_update_scores: the machine player (X) won", "mc_update_scores", UPDATE,
            ((X, X, X), (O, O, E), (E, E, E)), (1008,),
            "X won: each X square gains SCORE_CURRENT, each O square loses SCORE_OTHER, "
            "empty squares do not change.", player=X, scores=_ZEROS3),
    McCheck("mc_update_scores: the machine player (X) lost", "mc_update_scores", UPDATE,
            ((O, X, X), (E, O, X), (E, E, O)), (1009,),
            "O won and X is the machine player: each X square loses SCORE_CURRENT, each O "
            "square gains SCORE_OTHER; the scores already there are added to.", player=X,
            scores=((1.0, 2.0, -1.0), (0.5, 0.0, 0.0), (3.0, 0.0, 0.0))),
    McCheck("mc_update_scores: a draw changes nothing", "mc_update_scores", UPDATE,
            ((X, O, X), (X, O, O), (O, X, X)), (1010,),
            "A draw (check_win() returns DRAW) changes no score.", player=O,
            scores=((1.0, -2.0, 0.0), (0.0, 3.0, 0.0), (0.0, 0.0, -1.0))),
    McCheck("get_best_move: one best empty square", "get_best_move", BEST,
            ((X, E, E), (E, O, E), (E, E, E)), (1011,),
            "Return the empty square with the highest score.",
            scores=((0.0, 1.0, -2.0), (3.0, 0.0, 5.0), (0.0, -1.0, 2.0))),
    McCheck("get_best_move: ties (any tied square is correct)", "get_best_move", BEST,
            ((X, E, E), (E, E, E), (E, E, O)), (1012,),
            "Three empty squares share the highest score 2.0: any of them is correct.",
            scores=((0.0, 2.0, 1.0), (2.0, 0.0, -1.0), (1.0, 2.0, 0.0))),
    McCheck("get_best_move: negative scores, a full square scores highest",
            "get_best_move", BEST, ((X, O, E), (E, X, E), (O, E, E)), (1013,),
            "Only empty squares count, even when a full square has a higher score; all the "
            "empty squares score below 0 here, and the highest of them is -1.0.",
            scores=((9.0, 7.0, -3.0), (-2.0, 8.0, -1.0), (6.0, -4.0, -5.0))),
    McCheck("mc_move: an empty square on 3x3", "mc_move", MOVE_EMPTY,
            ((X, O, X), (E, O, E), (E, E, E)), (1014,),
            "mc_move returns get_best_move(board, scores): an empty square of board, and "
            "board itself does not change (each trial plays on board.clone()).",
            player=X, trials=20),
    McCheck("mc_move: an empty square on 4x4", "mc_move", MOVE_EMPTY,
            ((X, E, E, E), (E, O, E, E), (E, E, E, E), (E, E, E, E)), (1015,),
            "Do not assume the board is 3x3: board.get_dim() is its size.",
            player=X, trials=20),
    McCheck("mc_move: X takes the win", "mc_move", MOVE_RIGHT,
            ((X, O, E), (X, O, E), (E, E, E)), (1016,),
            "X completes the left column at (2, 0). With 500 trials a correct mc_move "
            "takes it in practically every run: (2, 0) wins every trial that starts there.",
            player=X, trials=500, moves=frozenset({(2, 0)})),
    McCheck("mc_move: O blocks", "mc_move", MOVE_RIGHT,
            ((X, E, E), (E, X, E), (O, E, E)), (1017,),
            "X threatens the diagonal, so O must take (2, 2); with 500 trials a correct "
            "mc_move does so in practically every run (every other square loses most "
            "trials).", player=O, trials=500, moves=frozenset({(2, 2)})),
    McCheck("mc_move: X blocks", "mc_move", MOVE_RIGHT,
            ((O, E, X), (E, O, E), (X, E, E)), (1018,),
            "O threatens the diagonal, so X must take (2, 2); with 500 trials a correct "
            "mc_move does so in practically every run.", player=X, trials=500,
            moves=frozenset({(2, 2)})),
)


def run_mc_check(check: McCheck, path: Path, limits: Limits) -> Reply:
    """Ask ``check``'s function from ``path`` in a child process (``student.mc_runner``).

    Raises NotWrittenError (the function raises NotImplementedError) or LoadError (the file
    does not import)."""
    return call_child(path, check.request(), limits, runner="student.mc_runner",
                      who=check.function)


def constants_of(reply: Reply) -> dict:
    """The file's NTRIALS, SCORE_CURRENT and SCORE_OTHER, as the child read them."""
    found = reply.extra.get("constants")
    return found if isinstance(found, dict) else {}


def judge_mc(check: McCheck, reply: Reply) -> McVerdict:
    """Judge one reply by the rules of ``provided.montecarlo``.

    >>> check = MC_CHECKS[6]
    >>> judge_mc(check, Reply(ANSWER, extra={"runs": [{"answer": "(1, 2)", "move": [1, 2],
    ...     "grid_after": [list(row) for row in check.grid]}]})).passed
    True
    >>> judge_mc(check, Reply(ANSWER, extra={"runs": [{"answer": "(0, 1)", "move": [0, 1],
    ...     "grid_after": [list(row) for row in check.grid]}]})).problem
    'returned (0, 1), which is not an empty square of the highest score'
    """
    if reply.kind == TIMEOUT:
        return McVerdict(check, False, reply.message, why=STUCK_WHY)
    if reply.kind == ERROR:
        lines = [line for line in reply.message.strip().splitlines()
                 if not line.startswith("This looks like Python 2:")]
        raised = lines[-1] if lines else "an exception"
        return McVerdict(check, False, f"raised {raised}", details=reply.message)
    if reply.kind == MISSING:
        return McVerdict(check, False, reply.message,
                         why=f"The course's template defines {check.function}: keep its name.")
    runs = reply.extra.get("runs")
    if reply.kind != ANSWER or not isinstance(runs, list) or not runs:
        return McVerdict(check, False, reply.message or "no answer")
    if check.judged in (TRIAL, TRIALS_DIFFER):
        return _judge_trials(check, runs)
    run = runs[0]
    received = str(run.get("answer", ""))
    if check.judged == UPDATE:
        return _judge_update(check, run, constants_of(reply))
    board_after = run.get("grid_after")
    if board_after != [list(row) for row in check.grid]:
        return McVerdict(
            check, False, f"{check.function} changed the board it was given",
            received=received,
            details=f"the board after the call: {TTTBoard(check.dim, check.reverse, board_after)!r}",
            why=("Run each trial on a copy: trial = board.clone(); mc_trial(trial, player)."
                 if check.function == "mc_move" else "get_best_move only reads the board."))
    move = tuple(run["move"]) if isinstance(run.get("move"), list) else None
    notes = (str(run["note"]),) if run.get("note") else ()
    if check.judged == BEST:
        accepted = best_moves([list(row) for row in check.grid],
                              [list(row) for row in check.scores or ()])
        expected = _any_of(accepted)
        if move not in accepted:
            problem = (f"returned {received}, which is not an empty square of the highest "
                       "score")
            if move is not None and move not in check.board().get_empty_squares():
                problem = (f"returned {received}, which is not an empty square: only "
                           "board.get_empty_squares() may be chosen")
            return McVerdict(check, False, problem, expected, received)
        return McVerdict(check, True, expected=expected, received=received, notes=notes)
    empty = check.board().get_empty_squares()
    if move not in empty:
        return McVerdict(check, False, f"returned {received}, which is not an empty square "
                         "(row, col) of this board", "an empty square", received)
    if check.judged == MOVE_RIGHT and move not in check.moves:
        expected = _any_of(sorted(check.moves))
        return McVerdict(check, False, f"returned {received}, not {expected}: if "
                         "mc_trial, mc_update_scores and get_best_move pass their checks, "
                         "look at how mc_move puts them together", expected, received)
    return McVerdict(check, True, received=received, notes=notes)


def _judge_trials(check: McCheck, runs: list) -> McVerdict:
    before = [list(row) for row in check.grid]
    games = []
    for seed, run in zip(check.seeds, runs):
        after = run.get("grid_after")
        problem = trial_problem(before, after, check.player, check.reverse)
        if problem:
            shown = TTTBoard(check.dim, check.reverse, after)
            return McVerdict(check, False, problem, "a finished game played on from the board",
                             f"the board after the call: {shown!r}",
                             details=("" if len(runs) == 1
                                      else f"(the call with random.seed({seed}))"))
        games.append(after)
    if check.judged == TRIALS_DIFFER and all(game == games[0] for game in games):
        return McVerdict(check, False,
                         f"played the same game with {len(runs)} different seeds",
                         "different games",
                         f"every time: {TTTBoard(check.dim, check.reverse, games[0])!r}")
    return McVerdict(check, True)


def _judge_update(check: McCheck, run: dict, constants: dict) -> McVerdict:
    current, other = constants.get("SCORE_CURRENT"), constants.get("SCORE_OTHER")
    for name, value in (("SCORE_CURRENT", current), ("SCORE_OTHER", other)):
        if not isinstance(value, (int, float)):
            return McVerdict(check, False, f"{name} is {'not defined' if value is None else value}"
                             " in your file", "a number",
                             why=f"The course's template defines {name} = 1.0: keep it, "
                                 "with a number of your choice.")
    grid = [list(row) for row in check.grid]
    start = [list(row) for row in check.scores or ()]
    want = expected_scores(start, grid, check.player, current, other, check.reverse)
    expected = f"scores {want} (with your SCORE_CURRENT = {current}, SCORE_OTHER = {other})"
    got = run.get("scores_after")
    received = f"scores {got}"
    answer = str(run.get("answer", ""))
    if run.get("grid_after") != grid:
        return McVerdict(check, False, "mc_update_scores changed the board it was given",
                         expected, received, why="mc_update_scores only reads the board.")
    if _same_scores(got, want):
        return McVerdict(check, True, expected=expected, received=received)
    if got == start and answer != "None":
        problem = ("the grid it was given was not changed (it returned a value instead): "
                   "add to scores[row][col] in place")
    elif got == start:
        problem = "the grid it was given was not changed: add to scores[row][col] in place"
    else:
        wrong = [(row, col) for row in range(check.dim) for col in range(check.dim)
                 if not _same_scores([[got[row][col]]], [[want[row][col]]])]
        problem = "wrong scores at " + ", ".join(map(str, wrong))
        empties = [square for square in wrong if grid[square[0]][square[1]] == EMPTY]
        if empties:
            problem += ": empty squares never change"
    return McVerdict(check, False, problem, expected, received)


def _same_scores(got: object, want: list) -> bool:
    """The same grid of numbers, up to rounding (0.1 + 0.2 is 0.30000000000000004)."""
    if not isinstance(got, list) or len(got) != len(want):
        return False
    for got_row, want_row in zip(got, want):
        if not isinstance(got_row, list) or len(got_row) != len(want_row):
            return False
        for value, expected in zip(got_row, want_row):
            if not isinstance(value, (int, float)) or not math.isclose(
                    value, expected, rel_tol=1e-9, abs_tol=1e-9):
                return False
    return True


def _any_of(moves: list) -> str:
    return str(moves[0]) if len(moves) == 1 else "any of " + ", ".join(map(str, moves))

"""How the Monte Carlo checks ask one case and judge the answer, in the grader's words.

Each function here asks the student's code about one case (through the session's client,
``mc``: seeded by the case's label, limited, in the sandbox) and records one check with
``record``. The public checks (``test_public.py``: what ``python -m student check`` runs,
and what every grade runs too) and the hidden ones (``test_montecarlo.py``) judge their
cases with these same functions, so a case gets the same verdict and the same words
wherever it is asked. The rules each answer is judged by are ``provided.montecarlo``'s.

A case is a tuple, as the tables of both suites write it:

- ``check_trial``: ``(name, grid, player, reverse)``;
- ``check_update``: ``(name, grid, player, reverse)`` on a finished board;
- ``check_best``: ``(name, grid, scores)``, X to move;
- ``check_legal``: ``(name, grid, player, reverse, trials)``;
- ``check_decisive``: a row of ``rubric.DECISIVE``.

>>> trial_code(position([[1, 1], [1, 1]], 2))
'board = TTTBoard(2, False, [[EMPTY, EMPTY], [EMPTY, EMPTY]]); mc_trial(board, PLAYERX); print(board)'
"""

from __future__ import annotations

from dataclasses import replace

from grader.assignments.calls import Call
from grader.assignments.montecarlo.bounds import trials_for
from grader.assignments.montecarlo.session import board_arg, grid_call, seed_of
from grader.judge.position import Position
from grader.judge.results import Failure
from provided.answers import show
from provided.board import EMPTY as E, NAMES, PLAYERX as X
from provided.montecarlo import (best_moves, expected_scores, same_scores, trial_problem,
                                 winner_of)

RANDOM_RUNS = 8        # trials of the empty board that must not all be the same game


def position(grid, player, reverse=False) -> Position:
    return Position.from_grid(grid, player, reverse)


def _move_of(answer) -> tuple[int, int] | None:
    if type(answer) in (tuple, list) and len(answer) == 2 \
            and all(type(v) is int for v in answer):
        return answer[0], answer[1]
    return None


def _after(call, index: int, dim: int) -> Position | None:
    cells = call.reply.after[index] if len(call.reply.after) > index else None
    if cells is None:
        return None
    return Position(dim, cells, X)


def _board_changed(call, start: Position, function: str, index: int) -> Failure | None:
    """The failure of a call that changed a board it must leave alone, else None."""
    after = call.reply.after[index] if len(call.reply.after) > index else None
    if after is None or tuple(after) == start.cells:
        return None
    return Failure("board changed", call.code, "the board as it was", "a changed board",
                   f"{function} must not change the board it is given"
                   + (": run each trial on a copy (board.clone())" if function == "mc_move"
                      else ""), start.drawing(),
                   board_after=Position(start.dim, tuple(after), X).drawing())


def _answered(record, call, start: Position, function: str, index: int) -> bool:
    """Whether the call answered and left its board (argument ``index``) alone; if not,
    the check is recorded, failed."""
    failure = (call.failure if call.failure is not None
               else _board_changed(call, start, function, index))
    if failure is not None:
        record.check(failure)
    return failure is None


def no_answer(call: Call, start: Position, function: str, index: int = 0) -> Failure:
    """The failure of a call that gave no answer, with the cause when the call changed
    the board it must leave alone before it raised: an ``mc_move`` whose trials play on
    the board itself fills it, and its ``get_best_move`` then finds no empty square (the
    exception says only ``max() arg is an empty sequence``)."""
    failure = call.failure
    assert failure is not None
    after = call.after[index] if len(call.after) > index else None
    if failure.category != "exception" or after is None or tuple(after) == start.cells:
        return failure
    hint = (": each trial must play on a copy (board.clone()); on the board itself the "
            "trials fill it, and get_best_move then finds no empty square"
            if function == "mc_move" else "")
    return replace(failure, board_after=Position(start.dim, tuple(after), X).drawing(),
                   why=(f"{function} changed the board it was given (see the board after "
                        f"the call) before it raised {failure.received}{hint}.\n"
                        f"{failure.why}"))


# --------------------------------------------------------------------------- mc_trial

def trial_code(start: Position) -> str:
    return (f"board = {start.board_call()}; mc_trial(board, {NAMES[start.player]}); "
            "print(board)")


def ask_trial(mc, start: Position, label: str):
    return mc.ask("mc_trial", [board_arg(start), {"value": start.player}], trial_code(start),
                  label, start, trials=1)


def check_trial(mc, record, case) -> None:
    """Plays to the end from the given board, the given player first, players
    alternating, on empty squares only, on the board itself."""
    name, grid, player, reverse = case
    start = position(grid, player, reverse)
    call = ask_trial(mc, start, f"mc_trial {name}")
    if call.failure is not None:
        record.check(call.failure)
        return
    after = _after(call, 0, start.dim)
    if after is None:
        record.check(Failure("unreadable board", call.code, "a finished game",
                             "a board whose squares could not be read",
                             "mc_trial must leave a TTTBoard whose squares hold EMPTY, "
                             "PLAYERX or PLAYERO", start.drawing()))
        return
    problem = trial_problem(start.grid, after.grid, player, reverse)
    record.check(None if problem is None else Failure(
        "bad trial", call.code, "a game played to its end from this board, "
        f"{NAMES[player]} first, players alternating", "the board below", problem,
        start.drawing(), board_after=after.drawing()))


def check_random(mc, record) -> None:
    """``RANDOM_RUNS`` trials from the empty board, each with another seed, do not all play
    the same game."""
    start = Position.empty(3)
    games, unanswered = set(), []
    for run in range(RANDOM_RUNS):
        call = ask_trial(mc, start, f"mc_trial random {run}")
        if call.failure is None and call.reply.after and call.reply.after[0] is not None:
            games.add(tuple(call.reply.after[0]))
        elif call.failure is not None:
            unanswered.append(call.failure)
    if len(games) < 2 and unanswered:    # too few games to say: the calls' failure says why
        record.check(unanswered[0])
        return
    seeds = ", ".join(str(seed_of(f"mc_trial random {run}")) for run in range(RANDOM_RUNS))
    record.check(None if len(games) > 1 else Failure(
        "not random", f"{trial_code(start)}   (after random.seed(S), for S in {seeds})",
        "different games",
        f"the same board every time ({RANDOM_RUNS} runs, each with another seed)",
        "mc_trial must choose each move at random (random.choice of the empty squares), so "
        "that trials differ; the grader seeds random differently for each run. Does the "
        "file call random.seed(...) with a fixed number inside mc_trial or mc_move, or pick "
        "the first empty square?", start.drawing()))


# --------------------------------------------------------------------------- mc_update_scores

START_SCORES = {3: [[0.5, -1.0, 2.0], [0.0, 3.0, -2.5], [1.0, 0.0, 0.0]]}


def start_scores(dim: int, label: str) -> list[list[float]]:
    if dim in START_SCORES and "O won, scoring for O" not in label:
        return [list(row) for row in START_SCORES[dim]]
    return [[0.0] * dim for _ in range(dim)]


def check_update(mc, record, case) -> None:
    """Exact (up to rounding; nan and inf are never right) on a finished board, with the
    constants the checks judge by (the file's where they make a fair test), the grid
    changed in place, the board left alone."""
    name, grid, player, reverse = case
    constants = mc.constants
    current, other = constants.current, constants.other
    record.note(constants.note())
    board = position(grid, player, reverse)
    scores = start_scores(board.dim, name)
    code = (f"scores = {grid_call(scores)}; mc_update_scores(scores, "
            f"{board.board_call()}, {NAMES[player]}); print(scores)")
    call = mc.ask("mc_update_scores", [{"grid": scores}, board_arg(board),
                                       {"value": player}], code,
                  f"mc_update_scores {name}", board)
    if not _answered(record, call, board, "mc_update_scores", 1):
        return
    want = expected_scores(scores, grid, player, current, other, reverse)
    got = call.reply.after[0]
    winner = winner_of(grid, reverse)
    record.check(None if same_scores(got, want, min(current, other)) else Failure(
        "wrong scores", code, grid_call(want), show(got),
        _update_why(winner, player, current, other), board.drawing()))


def _update_why(winner: int, player: int, current: float, other: float) -> str:
    if winner == 4:
        return "a draw changes no score"
    mine, theirs = NAMES[player], NAMES[3 if player == 2 else 2]
    if winner == player:
        return (f"{mine} (the machine player) won: each square of {mine} gains SCORE_CURRENT "
                f"({current:g}), each square of {theirs} loses SCORE_OTHER ({other:g}); "
                "empty squares do not change, and the scores already in the grid are added to")
    return (f"{mine} (the machine player) lost: each square of {mine} loses SCORE_CURRENT "
            f"({current:g}), each square of {theirs} gains SCORE_OTHER ({other:g}); empty "
            "squares do not change, and the scores already in the grid are added to")


# --------------------------------------------------------------------------- get_best_move

def check_best(mc, record, case) -> None:
    """An empty square of the highest score (among the empty squares), any of the tied
    ones, negative scores included; the board left alone."""
    name, grid, scores = case
    board = position(grid, X)
    want = best_moves(grid, scores)
    code = f"get_best_move({board.board_call()}, {grid_call(scores)})"
    call = mc.ask("get_best_move", [board_arg(board), {"grid": scores}], code,
                  f"get_best_move {name}", board)
    if not _answered(record, call, board, "get_best_move", 0):
        return
    move = _move_of(call.reply.answer)
    expected = " or ".join(map(str, want))
    if move is None:
        record.check(Failure("bad answer", code, expected, show(call.reply.answer),
                             "get_best_move must return a (row, col) tuple of ints",
                             board.drawing()))
    elif move not in want:
        full = (0 <= move[0] < board.dim and 0 <= move[1] < board.dim
                and grid[move[0]][move[1]] != E)
        why = ("that square is not empty: only empty squares may be chosen, whatever "
               "their score" if full else
               f"its score is {_score_at(scores, move)}, and the highest score of an "
               f"empty square is {scores[want[0][0]][want[0][1]]!r}")
        record.check(Failure("wrong move", code, expected, show(call.reply.answer), why,
                             board.drawing()))
    else:
        record.check(None)


def _score_at(scores, move) -> str:
    row, col = move
    if 0 <= row < len(scores) and 0 <= col < len(scores):
        return repr(scores[row][col])
    return "none (it is off the board)"


# --------------------------------------------------------------------------- mc_move

def move_code(board: Position, trials: int) -> str:
    return f"mc_move({board.board_call()}, {NAMES[board.player]}, {trials})"


def ask_move(mc, board: Position, trials: int, label: str):
    return mc.ask("mc_move", [board_arg(board), {"value": board.player}, {"value": trials}],
                  move_code(board, trials), label, board, trials=trials)


def judge_move(call, board: Position, expected: str, why_wrong: str,
               wanted=None, board_matters: bool = True) -> Failure | None:
    """The failure of an mc_move answer, or None: a legal move (and ``wanted``'s, if
    given), the board left alone (unless not ``board_matters``: a game judges moves)."""
    changed = _board_changed(call, board, "mc_move", 0) if board_matters else None
    if changed is not None:
        return changed
    move = _move_of(call.reply.answer)
    if move is None or move not in board.empty_squares():
        what = ("a (row, col) tuple of ints" if move is None else "an empty square")
        return Failure("illegal move", call.code, expected, show(call.reply.answer),
                       f"mc_move must return {what}: get_best_move of the board it was "
                       "given, among its empty squares", board.drawing())
    if wanted is not None and move != wanted:
        return Failure("missed move", call.code, expected, show(call.reply.answer), why_wrong,
                       board.drawing())
    return None


def check_legal(mc, record, case) -> None:
    """Always an empty square, the board left alone."""
    name, grid, player, reverse, trials = case
    board = position(grid, player, reverse)
    call = ask_move(mc, board, trials, f"mc_move {name}")
    record.check(no_answer(call, board, "mc_move") if call.failure is not None
                 else judge_move(call, board, "an empty square", ""))


def check_decisive(mc, record, case) -> None:
    """With enough trials it takes a win in one (also where the winning square's row and
    column hold other empty squares) or blocks a loss in one."""
    name, grid, player, wanted, shared = case
    constants = mc.constants
    record.note(constants.short_note())
    board = position(grid, player)
    plan = trials_for(grid, player, wanted, constants.current, constants.other,
                      shared_rows=shared)
    # The constants were chosen so that every one of these checks can be made: one that
    # could not would be the grader's fault, never the student's credit.
    assert plan.fair, f"mc_move {name} cannot be checked with {constants}"
    call = ask_move(mc, board, plan.trials, f"mc_move {name}")
    if call.failure is not None:
        record.check(no_answer(call, board, "mc_move"))
        return
    verb = "wins at once" if "win" in name else "stops the other player's win"
    why = (f"{wanted} {verb}. With {plan.trials} trials a correct mc_move chooses it "
           f"except with a chance below {plan.bound:.0e} (computed from the exact "
           "distribution of a random trial from this board): is each trial scored for "
           "the right player, and does get_best_move take the highest score?")
    if shared:
        why += (" A grid made with [[0] * dim] * dim holds one row object in every row, "
                "so each square gets its column's total: make each row its own list, "
                "[[0] * dim for _ in range(dim)].")
    record.check(judge_move(call, board, f"{wanted}", why, wanted))

"""The Monte Carlo assignment's hidden suite: one test per rubric item.

Each function is judged on its own first (on 3x3, 4x4 and other sizes, and in reverse
games), then ``mc_move`` in whole games. Every call is seeded by the grader
(``grader.assignments.montecarlo.session``), so the same file gets the same answers on
every run; the statistical checks of ``mc_move`` give it enough trials that a correct
player fails one with a chance below one in a hundred million (``bounds``). The score
constants they judge by are the file's where those make a fair test, else the course's, set
in the file's module for every call (``rubric``). The rules each answer is judged by are
``provided.montecarlo``'s, as ``python -m student check`` judges.
"""

from __future__ import annotations

import random

import pytest

from grader.assignments.montecarlo.bounds import trials_for
from grader.assignments.montecarlo.rubric import DECISIVE
from grader.assignments.montecarlo.session import board_arg, grid_call, seed_of
from grader.judge.position import Position
from grader.judge.results import Failure
from grader.judge.solver import shared_solver
from provided.answers import show
from provided.board import EMPTY as E, NAMES, PLAYERO as O, PLAYERX as X
from provided.montecarlo import (best_moves, expected_scores, same_scores, trial_problem,
                                 winner_of)

GAME_TRIALS = 100      # trials mc_move is given in the games
RANDOM_RUNS = 8        # trials of the empty board that must not all be the same game


def position(grid, player, reverse=False) -> Position:
    return Position.from_grid(grid, player, reverse)


def _received_grid(value) -> str:
    return show(value)


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


# --------------------------------------------------------------------------- mc_trial

TRIALS = [
    ("3x3 empty, X first", [[E] * 3 for _ in range(3)], X, False),
    ("3x3 empty, O first", [[E] * 3 for _ in range(3)], O, False),
    ("3x3 under way, X", [[X, O, E], [E, X, E], [O, E, E]], X, False),
    ("3x3 under way, O", [[X, E, E], [E, E, E], [E, E, E]], O, False),
    ("3x3 one square left", [[X, O, X], [X, O, O], [O, X, E]], X, False),
    ("2x2 empty", [[E, E], [E, E]], X, False),
    ("4x4 empty", [[E] * 4 for _ in range(4)], X, False),
    ("4x4 under way, O", [[X, E, E, E], [E, O, E, E], [E, E, X, E], [E, E, E, E]], O, False),
    ("3x3 reverse, empty", [[E] * 3 for _ in range(3)], X, True),
    ("3x3 reverse, under way", [[X, E, O], [E, E, E], [E, E, E]], X, True),
]


def trial_code(start: Position) -> str:
    return (f"board = {start.board_call()}; mc_trial(board, {NAMES[start.player]}); "
            "print(board)")


def ask_trial(mc, start: Position, label: str):
    return mc.ask("mc_trial", [board_arg(start), {"value": start.player}], trial_code(start),
                  label, start, trials=1)


@pytest.mark.rubric("mc_trial")
def test_mc_trial(mc, record):
    """Plays to the end from the given board, the given player first, players
    alternating, on empty squares only, on the board itself; and differently over runs."""
    for name, grid, player, reverse in TRIALS:
        start = position(grid, player, reverse)
        call = ask_trial(mc, start, f"mc_trial {name}")
        if call.failure is not None:
            record.check(call.failure)
            continue
        after = _after(call, 0, start.dim)
        if after is None:
            record.check(Failure("unreadable board", call.code, "a finished game",
                                 "a board whose squares could not be read",
                                 "mc_trial must leave a TTTBoard whose squares hold EMPTY, "
                                 "PLAYERX or PLAYERO", start.drawing()))
            continue
        problem = trial_problem(start.grid, after.grid, player, reverse)
        record.check(None if problem is None else Failure(
            "bad trial", call.code, "a game played to its end from this board, "
            f"{NAMES[player]} first, players alternating", "the board below", problem,
            start.drawing(), board_after=after.drawing()))
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

FINISHED = [
    ("X won, scoring for X", [[X, X, X], [O, O, E], [E, E, E]], X, False),
    ("X won, scoring for O", [[X, X, X], [O, O, E], [E, E, E]], O, False),
    ("O won, scoring for X", [[O, X, X], [O, X, E], [O, E, E]], X, False),
    ("O won, scoring for O", [[O, X, X], [O, X, E], [O, E, E]], O, False),
    ("a draw", [[X, O, X], [X, O, O], [O, X, X]], X, False),
    ("2x2, X won", [[X, O], [X, E]], O, False),
    ("4x4, O won", [[O, X, X, E], [X, O, E, X], [E, X, O, E], [E, E, E, O]], X, False),
    ("reverse: X made a line, so O won", [[X, X, X], [O, O, E], [E, E, E]], X, True),
]
START_SCORES = {3: [[0.5, -1.0, 2.0], [0.0, 3.0, -2.5], [1.0, 0.0, 0.0]]}


def start_scores(dim: int, label: str) -> list[list[float]]:
    if dim in START_SCORES and "O won, scoring for O" not in label:
        return [list(row) for row in START_SCORES[dim]]
    return [[0.0] * dim for _ in range(dim)]


@pytest.mark.rubric("mc_update_scores")
def test_mc_update_scores(mc, record):
    """Exact (up to rounding; nan and inf are never right) on finished boards (each side
    winning, a draw), with the constants the checks judge by (the file's where they make a
    fair test), the grid changed in place, the board left alone."""
    constants = mc.constants
    current, other = constants.current, constants.other
    record.note(constants.note())
    for name, grid, player, reverse in FINISHED:
        board = position(grid, player, reverse)
        scores = start_scores(board.dim, name)
        code = (f"scores = {grid_call(scores)}; mc_update_scores(scores, "
                f"{board.board_call()}, {NAMES[player]}); print(scores)")
        call = mc.ask("mc_update_scores", [{"grid": scores}, board_arg(board),
                                           {"value": player}], code,
                      f"mc_update_scores {name}", board)
        if call.failure is not None:
            record.check(call.failure)
            continue
        changed = _board_changed(call, board, "mc_update_scores", 1)
        if changed is not None:
            record.check(changed)
            continue
        want = expected_scores(scores, grid, player, current, other, reverse)
        got = call.reply.after[0]
        winner = winner_of(grid, reverse)
        record.check(None if same_scores(got, want, min(current, other)) else Failure(
            "wrong scores", code, grid_call(want), _received_grid(got),
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

BEST = [
    ("one best", [[X, E, E], [E, O, E], [E, E, E]],
     [[0.0, 3.0, -1.0], [2.0, 0.0, 1.0], [0.5, 0.0, -2.0]]),
    ("a tie", [[X, E, E], [E, O, E], [E, E, E]],
     [[0.0, 4.0, -1.0], [2.0, 0.0, 4.0], [0.5, 0.0, -2.0]]),
    ("every score negative", [[E, E, X], [E, O, E], [E, E, E]],
     [[-5.0, -3.0, 0.0], [-2.5, 0.0, -4.0], [-7.0, -1.5, -6.0]]),
    ("a full square scores highest", [[X, E, E], [E, O, E], [E, E, E]],
     [[9.0, 1.0, 0.0], [0.0, 9.0, 2.0], [0.0, 0.0, 0.0]]),
    ("every score equal", [[X, E, E], [E, E, E], [E, E, O]],
     [[0.0] * 3 for _ in range(3)]),
    ("one empty square", [[X, O, X], [X, O, O], [O, X, E]],
     [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0], [5.0, 5.0, -9.0]]),
    ("4x4", [[X, E, E, O], [E, E, E, E], [E, O, X, E], [E, E, E, E]],
     [[0, 1, 2, 9], [3, 0, 1, 0], [2, 8, 7, 1], [0, 7, 0, 2]]),
    ("2x2, ints", [[E, X], [E, E]], [[1, 5], [3, -1]]),
    # Every empty square far below any fixed floor a maximum may start at (-100, -NTRIALS,
    # -999.5), and far above any fixed ceiling: only a maximum over the empty squares
    # themselves finds the best.
    ("every score far below zero, ints", [[X, E, E], [E, O, E], [E, E, E]],
     [[-10**12, -10**9 - 5, -10**9 - 2], [-10**9 - 7, -10**12, -10**9 - 1],
      [-10**9 - 3, -10**9 - 9, -10**9 - 4]]),
    ("every score far below zero, floats", [[E, E, X], [E, O, E], [E, E, E]],
     [[-2.5e12, -3.25e12, -1e15], [-1.75e12, -1e15, -4.5e12], [-3.5e12, -2.25e12, -5e12]]),
    ("every score far above zero", [[X, E, E], [E, E, E], [E, E, O]],
     [[1e11, 2.5e12, 1.5e12], [3.5e12, 2.75e12, 10**12 + 7], [3e12, 10**12, 1e11]]),
]


@pytest.mark.rubric("get_best_move")
def test_get_best_move(mc, record):
    """An empty square of the highest score (among the empty squares), any of the tied
    ones, negative scores included; the board left alone."""
    for name, grid, scores in BEST:
        board = position(grid, X)
        want = best_moves(grid, scores)
        code = f"get_best_move({board.board_call()}, {grid_call(scores)})"
        call = mc.ask("get_best_move", [board_arg(board), {"grid": scores}], code,
                      f"get_best_move {name}", board)
        if call.failure is not None:
            record.check(call.failure)
            continue
        changed = _board_changed(call, board, "get_best_move", 0)
        if changed is not None:
            record.check(changed)
            continue
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

LEGAL = [
    ("3x3 empty", [[E] * 3 for _ in range(3)], X, False, 20),
    ("3x3 under way, O", [[X, E, E], [E, O, E], [E, E, X]], O, False, 20),
    ("3x3 one square left", [[X, O, X], [X, O, O], [O, X, E]], X, False, 5),
    ("2x2", [[X, E], [E, E]], O, False, 10),
    ("4x4 under way", [[X, O, E, E], [E, X, E, E], [E, E, O, E], [E, E, E, E]], X, False, 10),
    ("3x3 reverse", [[X, E, E], [E, O, E], [E, E, E]], X, True, 20),
]


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


@pytest.mark.rubric("mc_move")
def test_mc_move(mc, record):
    """Always an empty square, the board left alone; with enough trials it takes a win in
    one (also where the winning square's row and column hold other empty squares) and
    blocks a loss in one."""
    for name, grid, player, reverse, trials in LEGAL:
        board = position(grid, player, reverse)
        call = ask_move(mc, board, trials, f"mc_move {name}")
        record.check(call.failure if call.failure is not None else judge_move(
            call, board, "an empty square", ""))
    constants = mc.constants
    record.note(constants.short_note())
    for name, grid, player, wanted, shared in DECISIVE:
        board = position(grid, player)
        plan = trials_for(grid, player, wanted, constants.current, constants.other,
                          shared_rows=shared)
        # The constants were chosen so that every one of these checks can be made: one
        # that could not would be the grader's fault, never the student's credit.
        assert plan.fair, f"mc_move {name} cannot be checked with {constants}"
        call = ask_move(mc, board, plan.trials, f"mc_move {name}")
        if call.failure is not None:
            record.check(call.failure)
            continue
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


# --------------------------------------------------------------------------- game play

def _games():
    for reverse in (False, True):
        for side in (X, O):
            for opponent in ("a random player", "a perfect player"):
                yield reverse, side, opponent


@pytest.mark.rubric("game play")
def test_game_play(mc, record):
    """Whole 3x3 games through mc_move (with 100 trials a move) against a random and a
    perfect player, from both sides, normal and reverse: every move legal, every game
    finished. Wins, draws and losses are shown, not scored: a Monte Carlo player may lose
    to a perfect one."""
    solver = shared_solver()
    tally = {}
    for reverse, side, opponent in _games():
        mode = "reverse game" if reverse else "normal game"
        title = f"as {NAMES[side][-1]} against {opponent}, {mode}"
        rng = random.Random(f"{title}")
        board = Position.empty(3, X, reverse)
        moves = []
        failure = None
        while winner_of(board.grid, reverse) is None:
            if board.player == side:
                call = ask_move(mc, board, GAME_TRIALS, f"game {title} move {len(moves)}")
                if call.failure is not None:
                    failure = call.failure
                    break
                failure = judge_move(call, board, "an empty square", "",
                                     board_matters=False)   # the mc_move item's business
                if failure is not None:
                    break
                move = _move_of(call.reply.answer)
            elif opponent == "a random player":
                move = rng.choice(board.empty_squares())
            else:
                move = min(solver.best_moves(board))
            moves.append(move)
            board = board.play(move)
        record.check(failure)
        if failure is None:
            winner = winner_of(board.grid, reverse)
            outcome = "draw" if winner == 4 else "win" if winner == side else "loss"
            key = f"against {opponent}"
            tally.setdefault(key, []).append(outcome)
    for key, outcomes in tally.items():
        record.note(f"games {key} ({GAME_TRIALS} trials a move): "
                    + ", ".join(f"{outcomes.count(kind)} {kind}{'es' if kind == 'loss' else 's'}"
                                for kind in ("win", "draw", "loss")))

"""
Monte Carlo Tic-Tac-Toe player: the part you write.

Fill in the four functions below. To try them:

    python -m student check student/mc_player.py   # about a dozen public checks;
                                                    # each failure shows lines you can
                                                    # paste into Python to reproduce it
    python -m student -o student.mc_player:mc_move --trials 100
                                                    # play against your player (you are X)
    python -m student duel                          # your minimax against your Monte Carlo
"""

import random

import poc_ttt_gui
import poc_ttt_provided as provided

# Constants for Monte Carlo simulator
# You may change the values of these constants as desired, but
# do not change their names.
NTRIALS = 1         # Number of trials to run
SCORE_CURRENT = 1.0  # Score for squares played by the current player
SCORE_OTHER = 1.0   # Score for squares played by the other player


def mc_trial(board, player):
    """
    Play one game on board, player to move first, until it is over.

    - Each move is a random empty square (random.choice of
      board.get_empty_squares()); the players alternate
      (provided.switch_player), player moving first.
    - Stop as soon as board.check_win() is not None.
    - Play on board itself (in place): do not clone it. Return nothing.

    Example: after mc_trial(board, provided.PLAYERX) on an empty 3x3 board,
    board.check_win() is not None and X has as many marks as O, or one more.
    """
    raise NotImplementedError(
        "mc_trial is not written yet: open student/mc_player.py, fill in its body, "
        "then run `python -m student check student/mc_player.py`")


def mc_update_scores(scores, board, player):
    """
    Add one finished game (board) to scores; player is the machine player.

    - scores is a grid (list of lists) of the board's size: change it in
      place, return nothing.
    - A draw changes nothing.
    - If player won: each of player's squares gains SCORE_CURRENT, each of
      the other player's squares loses SCORE_OTHER.
    - If player lost: each of player's squares loses SCORE_CURRENT, each of
      the other player's squares gains SCORE_OTHER.
    - Empty squares never change.

    Example: X won on [[X, X, X], [O, O, EMPTY], [EMPTY, EMPTY, EMPTY]];
    for player X, all-zero scores become
    [[1.0, 1.0, 1.0], [-1.0, -1.0, 0.0], [0.0, 0.0, 0.0]].
    """
    raise NotImplementedError(
        "mc_update_scores is not written yet: open student/mc_player.py, fill in its "
        "body, then run `python -m student check student/mc_player.py`")


def get_best_move(board, scores):
    """
    Return (row, col): an empty square of board with the highest score.

    - Only empty squares count (board.get_empty_squares()), even when a
      full square has a higher score; scores may be negative.
    - When several empty squares share the highest score, any of them is
      correct (the course picked one at random).
    - board has at least one empty square.

    Example: on [[X, EMPTY], [EMPTY, EMPTY]] with scores [[9, -3], [-2, -2]]
    the answer is (1, 0) or (1, 1).
    """
    raise NotImplementedError(
        "get_best_move is not written yet: open student/mc_player.py, fill in its "
        "body, then run `python -m student check student/mc_player.py`")


def mc_move(board, player, trials):
    """
    Return (row, col): the Monte Carlo player's move for player on board.

    - Start from a grid of zeros of the board's size.
    - Run trials trials: each one plays mc_trial on board.clone() (never on
      board itself: board must not change), then mc_update_scores.
    - Return get_best_move(board, scores).

    Works for any board size (board.get_dim()) and for reverse games:
    board.check_win() already knows the rules.
    """
    raise NotImplementedError(
        "mc_move is not written yet: open student/mc_player.py, fill in its body, "
        "then run `python -m student check student/mc_player.py`")


# Test game with the console or the GUI.  Uncomment whichever
# you prefer.  Both should be commented out when you submit
# for testing to save time.

# provided.play_game(mc_move, NTRIALS, False)
# poc_ttt_gui.run_gui(3, provided.PLAYERX, mc_move, NTRIALS, False)

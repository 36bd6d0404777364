"""
Monte Carlo Tic-Tac-Toe Player: a correct file written for the course, as it was handed in.

The course's imports (poc_ttt_gui, poc_ttt_provided as provided), Python 3 prints, and the
course's calls at the bottom left in: the checks and the grader skip the games it starts
when imported. Every public check passes; the grader gives it full marks.
"""

import random
import poc_ttt_gui
import poc_ttt_provided as provided

# Constants for Monte Carlo simulator
# You may change the values of these constants as desired, but
#  do not change their names.
NTRIALS = 100         # Number of trials to run
SCORE_CURRENT = 1.0 # Score for squares played by the current player
SCORE_OTHER = 1.0   # Score for squares played by the other player


def mc_trial(board, player):
    """
    Plays a game starting with the given player by making random moves,
    alternating between players.
    """
    while board.check_win() == None:
        empty_squares = board.get_empty_squares()
        next_move = random.choice(empty_squares)
        board.move(next_move[0], next_move[1], player)
        player = provided.switch_player(player)


def mc_update_scores(scores, board, player):
    """
    Scores the completed board and updates the scores grid.
    """
    winner = board.check_win()
    if winner == provided.DRAW:
        return
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            square = board.square(row, col)
            if square == provided.EMPTY:
                continue
            if winner == player:
                if square == player:
                    scores[row][col] += SCORE_CURRENT
                else:
                    scores[row][col] -= SCORE_OTHER
            else:
                if square == player:
                    scores[row][col] -= SCORE_CURRENT
                else:
                    scores[row][col] += SCORE_OTHER


def get_best_move(board, scores):
    """
    Finds the empty squares with the maximum score and randomly
    returns one of them as a (row, column) tuple.
    """
    empty_squares = board.get_empty_squares()
    max_score = max([scores[square[0]][square[1]] for square in empty_squares])
    best = [square for square in empty_squares if scores[square[0]][square[1]] == max_score]
    return random.choice(best)


def mc_move(board, player, trials):
    """
    Uses a Monte Carlo simulation to return a move for the machine player
    in the form of a (row, column) tuple.
    """
    dim = board.get_dim()
    scores = [[0 for dummy_col in range(dim)] for dummy_row in range(dim)]
    for dummy_trial in range(trials):
        trial_board = board.clone()
        mc_trial(trial_board, player)
        mc_update_scores(scores, trial_board, player)
    return get_best_move(board, scores)


# Test game with the console or the GUI.  Uncomment whichever
# you prefer.  Both should be commented out when you submit
# for testing to save time.

print("Monte Carlo player, NTRIALS =", NTRIALS)
provided.play_game(mc_move, NTRIALS, False)
poc_ttt_gui.run_gui(3, provided.PLAYERX, mc_move, NTRIALS, False)

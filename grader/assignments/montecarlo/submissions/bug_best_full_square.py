"""Bug: get_best_move looks at every square, full ones too."""
import random
import poc_ttt_gui
import poc_ttt_provided as provided

NTRIALS = 100         # Number of trials to run
SCORE_CURRENT = 1.0   # Score for squares played by the current player
SCORE_OTHER = 1.0     # Score for squares played by the other player


def mc_trial(board, player):
    while board.check_win() is None:
        row, col = random.choice(board.get_empty_squares())
        board.move(row, col, player)
        player = provided.switch_player(player)


def mc_update_scores(scores, board, player):
    winner = board.check_win()
    if winner == provided.DRAW or winner is None:
        return
    other = provided.switch_player(player)
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            square = board.square(row, col)
            if square == player:
                scores[row][col] += SCORE_CURRENT if winner == player else -SCORE_CURRENT
            elif square == other:
                scores[row][col] += -SCORE_OTHER if winner == player else SCORE_OTHER


def get_best_move(board, scores):
    dim = board.get_dim()
    empty = [(row, col) for row in range(dim) for col in range(dim)]
    best = max(scores[row][col] for row, col in empty)
    return random.choice([(row, col) for row, col in empty if scores[row][col] == best])


def mc_move(board, player, trials):
    dim = board.get_dim()
    scores = [[0 for _ in range(dim)] for _ in range(dim)]
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)


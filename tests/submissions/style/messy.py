import poc_ttt_provided as provided
import math

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    bestScore, bestMove = None, (-1, -1)
    for row, col in board.get_empty_squares():
        trialBoard = board.clone()
        trialBoard.move(row, col, player)
        score, move = mm_move(trialBoard, provided.switch_player(player))
        # keep the best score for the player to move: X maximises the score, O minimises it
        if bestScore is None or score * SCORES[player] > bestScore * SCORES[player]:
            bestScore, bestMove = score, (row, col)
    return bestScore, bestMove


def move_wrapper(board, player, trials):
    """Only the move of mm_move, for play_game."""
    move = mm_move(board, player)
    assert move[1] != (-1, -1), "returned illegal move (-1, -1)"
    return move[1]

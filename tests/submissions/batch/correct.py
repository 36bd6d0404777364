"""A correct minimax (plain: clone at every step, no pruning) for the benchmark."""
import provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _ = mm_move(child, provided.switch_player(player))
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
            if score == SCORES[player]:
                break
    return best_score, best_move


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

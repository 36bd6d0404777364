"""A correct mm_move that prints while it works, as a student debugging it would: a line
when imported, then at the top of each search a line and each first move's score."""

import provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}

print("mm_player loaded")


def search(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for row, col in board.get_empty_squares():
        trial = board.clone()
        trial.move(row, col, player)
        score = search(trial, provided.switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, (row, col))
    return best


def mm_move(board, player):
    print("mm_move:", len(board.get_empty_squares()), "empty squares")
    for row, col in board.get_empty_squares():
        trial = board.clone()
        trial.move(row, col, player)
        print("  move", (row, col), "scores", search(trial, provided.switch_player(player))[0])
    return search(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

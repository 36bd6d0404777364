"""Bug: Python 2 (the course once ran Python 2)."""
import poc_ttt_provided as provided

def mm_move(board, player):
    print "thinking about", player
    return 0, (-1, -1)

def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

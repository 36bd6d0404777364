"""The reference: the slowest search a student reasonably writes, to time limits against.

A plain minimax (clone at every step, no pruning) on :class:`CourseBoard`, a board written
like the course's original. The worker runs it when asked, before any student code is
loaded (``grader.timing.policy`` says how the limits follow from it). Standard library only.
"""


_EMPTY, _PLAYERX, _PLAYERO, _DRAW = 1, 2, 3, 4   # the course's values (COURSE_API.md)
_SCORES = {_PLAYERX: 1, _DRAW: 0, _PLAYERO: -1}


class CourseBoard:
    """The course's board as it was written: the same rules as ``provided.TTTBoard``, the
    original's speed (``check_win`` builds lists of lines, ``clone`` goes through the
    constructor). Time limits are multiples of a plain minimax on this board.

    >>> board = CourseBoard(3, False, [[2, 2, 2], [3, 3, 1], [1, 1, 1]])
    >>> board.check_win(), len(board.get_empty_squares())
    (2, 4)
    """

    def __init__(self, dim, reverse=False, board=None):
        self._dim = dim
        self._reverse = reverse
        if board is None:
            self._board = [[_EMPTY for _ in range(dim)] for _ in range(dim)]
        else:
            self._board = [[board[row][col] for col in range(dim)] for row in range(dim)]

    def get_dim(self):
        return self._dim

    def square(self, row, col):
        return self._board[row][col]

    def get_empty_squares(self):
        return [(row, col) for row in range(self._dim) for col in range(self._dim)
                if self._board[row][col] == _EMPTY]

    def move(self, row, col, player):
        if self._board[row][col] == _EMPTY:
            self._board[row][col] = player

    def check_win(self):
        board, dim = self._board, self._dim
        dimrng = range(dim)
        lines = []
        lines.extend(board)
        lines.extend([[board[row][col] for row in dimrng] for col in dimrng])
        lines.append([board[idx][idx] for idx in dimrng])
        lines.append([board[idx][dim - idx - 1] for idx in dimrng])
        for line in lines:
            if len(set(line)) == 1 and line[0] != _EMPTY:
                if self._reverse:
                    return _PLAYERO if line[0] == _PLAYERX else _PLAYERX
                return line[0]
        if len(self.get_empty_squares()) == 0:
            return _DRAW
        return None

    def clone(self):
        return CourseBoard(self._dim, self._reverse, self._board)


def plain_minimax(board, player):
    """A student's first minimax: (score, move, nodes visited), clone at every step.

    >>> plain_minimax(CourseBoard(2), _PLAYERX)
    (1, (0, 0), 41)
    """
    winner = board.check_win()
    if winner is not None:
        return _SCORES[winner], (-1, -1), 1
    best_score, best_move, nodes = None, (-1, -1), 1
    other = _PLAYERO if player == _PLAYERX else _PLAYERX
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _, below = plain_minimax(child, other)
        nodes += below
        if best_score is None or (score > best_score if player == _PLAYERX
                                  else score < best_score):
            best_score, best_move = score, (row, col)
    return best_score, best_move, nodes


def reference(request):
    """Run the reference search on the requested position; the parent times it."""
    dim, cells = request["dim"], request["cells"]
    board = CourseBoard(dim, request["reverse"], [cells[r * dim:r * dim + dim]
                                                  for r in range(dim)])
    score, _, nodes = plain_minimax(board, request["player"])
    return {"status": "ref", "score": score, "nodes": nodes}

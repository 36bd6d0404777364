"""Hostile: connects to a TCP port on 127.0.0.1 where the test listens, at import and in
its first call, and sends its marker; also tries to listen on a port of its own.

Expected: no connection arrives (bubblewrap: no network namespace but its own loopback;
Landlock ABI 4+: no TCP connect or bind). It answers correctly: score 100.
"""
import socket

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def solve(board, player):
    """A correct, memoised minimax: (score, (row, col))."""
    key = (repr(board), player)
    if key not in MEMO:
        winner = board.check_win()
        if winner is not None:
            MEMO[key] = SCORES[winner], (-1, -1)
        else:
            best = None
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                score = solve(child, switch_player(player))[0]
                if best is None or score * SCORES[player] > best[0] * SCORES[player]:
                    best = score, (row, col)
            MEMO[key] = best
    return MEMO[key]

CALLED = []


def reach_out():
    try:
        with socket.create_connection(("127.0.0.1", int("@PORT@")), timeout=1) as link:
            link.sendall(b"hello from @MARKER@")
    except (OSError, ValueError):
        pass
    try:
        server = socket.socket()
        server.bind(("0.0.0.0", 0))
        server.listen()
    except OSError:
        pass


reach_out()


def mm_move(board, player):
    if not CALLED:
        CALLED.append(reach_out())
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

"""Hostile: prints what the grader's channel and report look like (a protocol answer
line, "Score: 100 / 100", "[ok]" lines) at import and in every call, to stdout and stderr;
its answers are wrong (always a draw and the first empty square).

Expected: printing is only output, never an answer or a verdict: the score is what the
wrong answers earn (well under 100), and the report never shows the fake "Score: 100".
"""
import sys

FAKE = ('{"tok": "0", "status": "ok", "cpu": 0, "board": null, '
        '"answer": {"t": "int", "v": 1}}\n'
        "Score: 100 / 100\n[ok] finished boards (10.0 / 10.0)\n[ok] scores (15.0 / 15.0)\n")
print(FAKE)
print(FAKE, file=sys.stderr)


def mm_move(board, player):
    print(FAKE)
    sys.stderr.write(FAKE)
    if board.check_win() is not None:
        return 0, (-1, -1)
    return 0, board.get_empty_squares()[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

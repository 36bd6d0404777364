"""Hostile: tries to fill the disk at import: a 1 GB file in its working directory and
in its home, then 16 MB files until the disk says no.

Expected: its working directory is read-only; a single file stops at 16 MiB (RLIMIT_FSIZE,
EFBIG rather than a kill); under bubblewrap everything it writes lives in a 64 MiB private
/tmp. It answers correctly but reports what it managed in an exception on the empty 1x1
board ("wrote N bytes ..."): "other sizes" loses that one check. (Without bubblewrap its
scratch folder is watched instead, and the import is stopped once it passes 64 MiB: a load
error, tested in tests/sandbox/test_confinement.py.)
"""
import os

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

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"

CHUNK = b"z" * (1 << 20)
WROTE = {"total": 0, "biggest": 0, "files": 0}


def fill(path, limit):
    size = 0
    try:
        with open(path, "wb") as file:
            while size < limit:
                size += file.write(CHUNK)
                file.flush()
    except OSError:
        pass
    WROTE["total"] += size
    WROTE["biggest"] = max(WROTE["biggest"], size)
    WROTE["files"] += size > 0
    return size


fill("big.bin", 1 << 30)
home = os.environ.get("HOME", ".")
fill(os.path.join(home, "big.bin"), 1 << 30)
for number in range(12):
    if fill(os.path.join(home, "more%d.bin" % number), 16 << 20) < (16 << 20):
        break


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        raise RuntimeError("wrote %(total)d bytes in %(files)d files, the biggest "
                           "%(biggest)d bytes" % WROTE)
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]

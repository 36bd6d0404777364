"""Course compatibility: the CodeSkulptor front end does not exist here; ``run_gui`` does nothing.

Old submissions end with ``poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)``;
that line now costs nothing. (``python -m student`` plays against a submission in a terminal.)

>>> run_gui(3, 3, None, 1, False)
"""


def run_gui(board_size, ai_player, ai_function, ntrials, reverse=False):
    """Do nothing: there is no graphical interface outside CodeSkulptor."""

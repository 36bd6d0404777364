"""The student handout: write ``mm_move`` in ``student/mm_player.py`` (and the Monte Carlo
player's four functions in ``student/mc_player.py``).

    python -m student check    the assignment's public checks on your mm_move, run by
                               the grader (check student/mc_player.py: the Monte
                               Carlo player's)
    python -m student          play against your mm_move in the terminal
    python -m student duel     your minimax against your Monte Carlo player
    python -m student submit   hand it in to the course's submission page

This package deliberately imports nothing at start-up: a half-written
``mm_player.py`` (even one with a syntax error) must not stop the commands
above from explaining what is wrong. What is one assignment's (its checks, its
speed policy) is in that assignment's package; ``check`` asks the grader to run it.
"""

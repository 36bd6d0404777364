"""The student handout: write ``mm_move`` in ``student/mm_player.py`` (and the Monte Carlo
player's four functions in ``student/mc_player.py``).

    python -m student check    run the public checks against your mm_move
                               (check student/mc_player.py: the Monte Carlo player's)
    python -m student          play against your mm_move in the terminal
    python -m student duel     your minimax against your Monte Carlo player
    python -m student submit   hand it in to the course's submission page

This package deliberately imports nothing at start-up: a half-written
``mm_player.py`` (even one with a syntax error) must not stop the commands
above from explaining what is wrong.
"""

"""The student handout: write ``mm_move`` in ``student/mm_player.py``.

    python -m student check    run the public checks against your mm_move
    python -m student          play against your mm_move in the terminal
    python -m student submit   hand it in to the course's submission page

This package deliberately imports nothing at start-up: a half-written
``mm_player.py`` (even one with a syntax error) must not stop the commands
above from explaining what is wrong.
"""

"""The desktop port of CodeSkulptor, as far as files written for the course use it: its
codeskulptor and simpleguics2pygame modules (see provided/course.py). It sits beside
mm_player.py so that ``python3 mm_player.py`` finds it."""
import os
import sys

try:
    from provided import course
except ImportError:  # the project is not installed: provided/ is beside the folder above
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from provided import course

course.install()

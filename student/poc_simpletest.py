"""The course's module poc_simpletest, for files written for the course (see provided/course.py).

It sits beside mm_player.py so that ``python3 mm_player.py`` runs a file written for the
course as it is: ``import poc_simpletest`` finds this file, which stands for ours.
"""
import os
import sys

try:
    from provided import course
except ImportError:  # the project is not installed: provided/ is beside this folder
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from provided import course

course.install()
sys.modules[__name__] = course.course_module(__name__)

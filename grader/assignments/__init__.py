"""Assignments: the course's minimax and Monte Carlo players, and any an instructor adds.

- ``assignment``: the :class:`Assignment` value (and the ``Session`` a grading run uses);
- ``registry``: which assignments there are (built in, and the ``grader.assignments``
  entry points) and which one a file is for;
- ``minimax/`` and ``montecarlo/``: the course's two, each a package holding what only it
  knows (its session with the student's code, its hidden checks, its rubric's defaults).
"""

from grader.assignments.assignment import Assignment, AssignmentError, Session
from grader.assignments.registry import available, choose, get, problems, recognise

__all__ = ["Assignment", "AssignmentError", "Session", "available", "choose", "get",
           "problems", "recognise"]

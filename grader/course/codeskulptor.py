"""Course compatibility: CodeSkulptor's ``set_timeout`` is a no-op; the grader sets the limits.

>>> set_timeout(60)
"""


def set_timeout(seconds):
    """Do nothing: CodeSkulptor's run-time limit does not apply here."""

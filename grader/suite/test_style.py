"""The style item, shared by every assignment's hidden suite (its ``suite`` names this file).

Style as the course graded it: pylint with the course's checks (``grader/suite/style.py``).
"""

import pytest

from grader.suite import style


@pytest.mark.rubric("style")
def test_style(submission, rubric_points, record):
    """Style, as the course graded it: pylint with the course's configuration
    (grader/suite/style.py). Each message is a deduction of 1/10 of the item, 10 or more
    cost all of it. Off (0 points) by default, and then pylint is not even run."""
    if not rubric_points.get("style"):
        return
    result = style.check_style(submission)
    for issue in result.issues:
        record.check(issue.failure())
    for _ in range(result.kept):
        record.check(None)
    if result.issues:
        record.note(style.rule())

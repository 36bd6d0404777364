"""The hidden suite: pytest tests, one per rubric item, run by ``grader.engine``."""

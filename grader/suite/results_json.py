"""Gradescope's results.json for one grading run (its autograder specification).

One test per rubric item; ``extra_data`` carries everything for the instructor and the
batch (bounded: a submission that fails every check makes no megabyte file).

>>> from grader.judge.results import GradeResult, ItemResult
>>> r = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 3, 4),))
>>> gradescope_results(r)["tests"][0]["status"]
'failed'
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from grader.judge.results import GradeResult
from grader.suite.report import item_report, summary_text
from grader.suite.scoring import (category_counts, check_options, item_passed, item_score,
                                  item_state, judged_first, score_of)

# Gradescope's own words for who may see a test (autograder specifications).
GRADESCOPE_VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
EXTRA_FAILURES = 50        # failures of each item kept in full in results.json's extra_data


def _json_safe(value: Any) -> Any:
    """``value`` with tuples as lists and NaN/infinity as None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def _extra_data(result: GradeResult, visibility: str) -> dict[str, Any]:
    data = result.to_json()
    data["score"] = score_of(result)
    data["visibility"] = visibility
    for item, item_data in zip(result.items, data["items"]):
        item_data["score"] = item_score(result, item)
        item_data["status"] = "passed" if item_passed(result, item) else "failed"
        item_data["state"] = item_state(result, item)
        item_data["categories"] = category_counts(item.failures)
        # The judged failures first, and a bounded number: a submission that fails every
        # check must not make a results.json of megabytes (the counts say the rest).
        kept = judged_first(item.failures)[:EXTRA_FAILURES]
        item_data["failures"] = [asdict(failure) for failure in kept]
        item_data["failures_left_out"] = len(item.failures) - len(kept)
        if visibility == "categories":
            # extra_data is stored with the submission; keep the positions out of it too.
            item_data["failures"] = [{"category": f.category} for f in kept]
            item_data["notes"] = []
    return _json_safe(data)


def gradescope_results(result: GradeResult, visibility: str = "full",
                       examples: int = 3, leaderboard: bool = False,
                       graded_under: dict[str, Any] | None = None,
                       student_name: str = "") -> dict[str, Any]:
    """Gradescope's results.json for one run, as a dict ready for :func:`write_json_atomic`.

    One test per rubric item, every one ``"visible"`` (shown to the student at once). With
    ``visibility="categories"`` those show only counts per category, and each item that
    failed gets a companion test, worth nothing, with Gradescope's ``"after_due_date"``
    visibility: its full feedback (the calls, boards and why), which Gradescope shows the
    student once the deadline has passed, with no regrade. stdout is ``"hidden"``: it may
    hold what the submission printed. All outputs are plain text. With ``leaderboard``, a
    correct submission's CPU time on the empty 3x3 board goes to Gradescope's leaderboard.
    ``graded_under`` (``GradedUnder.to_json()``: the configuration and the grader's
    version) goes to ``extra_data["configuration"]``, so that a batch knows what each
    result was graded under. ``student_name``, when given, is in the summary's header and
    in ``extra_data["student_name"]``; no score or test depends on it.

    >>> from grader.judge.results import GradeResult, ItemResult
    >>> r = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 3, 4),))
    >>> data = gradescope_results(r)
    >>> data["score"], data["tests"][0]["status"], data["tests"][0]["max_score"]
    (15.0, 'failed', 20.0)
    """
    check_options(visibility, examples)
    tests = []
    for item in result.items:
        tests.append({
            "name": item.name,
            "score": item_score(result, item),
            "max_score": item.max_score,
            "status": "passed" if item_passed(result, item) else "failed",
            "output": item_report(result, item, visibility, examples),
            "output_format": "text",
            "visibility": "visible",
            "extra_data": {"passed": item.passed, "total": item.total,
                           "failed": item.failed, "no_answer": item.no_answer,
                           "state": item_state(result, item),
                           "categories": category_counts(item.failures)},
        })
    if visibility == "categories":
        tests += [{
            "name": f"{item.name}: the failures in full",
            "score": 0.0, "max_score": 0.0,
            "status": "failed",   # it lists failures; worth nothing, so it costs nothing
            "output": item_report(result, item, "full", examples),
            "output_format": "text",
            "visibility": "after_due_date",
        } for item in result.items if item.failures]
    wall = round(result.wall_seconds, 2) if math.isfinite(result.wall_seconds) else 0.0
    board = result.timing.get("empty_board_cpu_seconds")
    extra: dict[str, Any] = {}
    if leaderboard and isinstance(board, (int, float)) and score_of(result) > 0:
        extra["leaderboard"] = [{"name": "empty board, CPU s", "value": round(board, 4),
                                 "order": "asc"}]
    return {
        **extra,
        # The sum of the tests, so that Gradescope's total and the tests agree.
        "score": round(sum(test["score"] for test in tests), 2),
        "execution_time": wall,
        "output": summary_text(result, visibility, student_name),
        "output_format": "text",
        "test_output_format": "text",
        "stdout_visibility": "hidden",
        "tests": _json_safe(tests),
        "extra_data": {**_extra_data(result, visibility),
                       **({"student_name": student_name} if student_name else {}),
                       **({"configuration": _json_safe(graded_under)} if graded_under else {})},
    }

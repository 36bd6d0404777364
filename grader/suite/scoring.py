"""Scores and states of a graded run's items, shared by every form of its report.

The text report (``report``), Gradescope's results.json (``results_json``) and the CSV row
(``table``) all read a :class:`~grader.judge.results.GradeResult` through these, so that a
submission that could not be run scores 0 everywhere and an item that checked nothing has
not passed anywhere.

>>> from grader.judge.results import GradeResult, ItemResult
>>> result = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 20, 20),))
>>> score_of(result), item_state(result, result.items[0])
(20.0, 'passed')
"""

from __future__ import annotations

from collections.abc import Iterable

from grader.judge.results import Failure, GradeResult, ItemResult

VISIBILITIES = ("full", "categories")


def check_options(visibility: str, examples: int = 0) -> None:
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}, not {visibility!r}")
    if examples < 0:
        raise ValueError(f"examples must be 0 or more, not {examples}")


def score_of(result: GradeResult) -> float:
    # A submission that could not be run earns nothing, whatever the items say.
    return 0.0 if result.load_error is not None else result.score


def item_score(result: GradeResult, item: ItemResult) -> float:
    return 0.0 if result.load_error is not None else item.score


def item_passed(result: GradeResult, item: ItemResult) -> bool:
    # Stricter than ItemResult.status: an item that checked nothing has not passed.
    return (result.load_error is None and item.error is None
            and item.total > 0 and item.passed == item.total)


def item_state(result: GradeResult, item: ItemResult) -> str:
    """"passed", "failed", "no answer" (no check failed, some got no answer) or "not run"."""
    if result.load_error is not None:
        return "not run"
    return item.status


def judged_first(failures: Iterable[Failure]) -> list[Failure]:
    """Judged failures first (what the student got wrong), then the calls with no answer."""
    return sorted(failures, key=lambda failure: not failure.judged)


def category_counts(failures: Iterable[Failure]) -> dict[str, int]:
    """How many failures of each category, in first-seen order.

    >>> f = Failure("wrong score", "mm_move(...)", "score 0", "(1, (0, 0))")
    >>> category_counts([f, f])
    {'wrong score': 2}
    """
    counts: dict[str, int] = {}
    for failure in failures:
        counts[failure.category] = counts.get(failure.category, 0) + 1
    return counts



def is_deduction(failure: Failure) -> bool:
    """A deduction about the file itself (the ``style`` item's): a line of it, what is wrong
    and what to do, with no call and no answer. It shows no hidden position, so every
    visibility shows it in full.

    >>> is_deduction(Failure("invalid-name", "line 3: C0103 invalid-name: ...", "", ""))
    True
    """
    return not failure.expected and not failure.received

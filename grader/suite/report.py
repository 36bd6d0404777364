"""The report of a grading run that a person reads (the student, the instructor).

It reads a finished :class:`~grader.judge.results.GradeResult` and returns text; nothing
here prints or grades. (Gradescope's results.json: ``results_json``; a CSV row: ``table``;
writing files: ``writers``.) The small helpers at the top are theirs too.

Two visibilities:

- ``"full"``: every failed item shows up to ``examples`` failures in the course grader's
  style (a call to paste, what was expected, what came back), the board, why the answer is
  wrong and, for lost games, the moves.
- ``"categories"`` (before the deadline): failed items show only how many failures of each
  category they had, so the hidden positions stay hidden. Scores are still shown.

>>> from grader.judge.results import GradeResult, ItemResult
>>> result = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 20, 20),))
>>> print(text_report(result).splitlines()[2])
Score: 20 / 20
"""

from __future__ import annotations

from collections.abc import Iterable

from grader.judge.results import NO_ANSWER, Failure, GradeResult, ItemResult

VISIBILITIES = ("full", "categories")

_HIDDEN_NOTE = "(the failing positions are shown after the deadline)"


_LOAD_OUTPUT_LIMIT = 2000   # characters of what the submission printed on import


def check_options(visibility: str, examples: int = 0) -> None:
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}, not {visibility!r}")
    if examples < 0:
        raise ValueError(f"examples must be 0 or more, not {examples}")


def _num(value: float) -> str:
    """A total for people: 87.5, 100, 66.67."""
    return f"{round(value, 2):g}"


def _pts(value: float) -> str:
    """Points in the course grader's style: 25.0, 2.5, 0.33 (and <0.01, not 0.0).

    >>> _pts(25), _pts(0.333), _pts(0.004)
    ('25.0', '0.33', '<0.01')
    """
    if 0 < value < 0.005:
        return "<0.01"
    value = round(value, 2)
    return f"{value:.1f}" if round(value, 1) == value else f"{value:.2f}"


def _indent(text: str, spaces: int) -> list[str]:
    pad = " " * spaces
    return [pad + line if line else line for line in text.splitlines()]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {category}" for category, count in counts.items())


def is_deduction(failure: Failure) -> bool:
    """A deduction about the file itself (the ``style`` item's): a line of it, what is wrong
    and what to do, with no call and no answer. It shows no hidden position, so every
    visibility shows it in full.

    >>> is_deduction(Failure("invalid-name", "line 3: C0103 invalid-name: ...", "", ""))
    True
    """
    return not failure.expected and not failure.received


def _deductions_only(failures: Iterable[Failure]) -> bool:
    """Failures that are all deductions (and some): the report shows every one, in full."""
    failures = list(failures)
    return bool(failures) and all(map(is_deduction, failures))


def failure_line(failure: Failure) -> str:
    """The course grader's line: a call to paste, then what was expected and received
    (a deduction: its line alone).

    >>> failure_line(Failure("wrong score", "mm_move(b, PLAYERX)", "score 0", "(1, (2, 2))"))
    'mm_move(b, PLAYERX) expected score 0 but received (1, (2, 2))'
    """
    if is_deduction(failure):
        return failure.call
    if failure.expected:
        return f"{failure.call} expected {failure.expected} but received {failure.received}"
    return f"{failure.call} received {failure.received}"


def _failure_block(failure: Failure) -> list[str]:
    # The call starts at column 0 so that it pastes into a Python prompt as it is.
    lines = [failure_line(failure)]
    if not failure.judged:
        lines.append(f"  ({NO_ANSWER}: this check could not be judged and earns no points)")
    if failure.board:
        lines.append("  board before the call:" if failure.board_after else "  board:")
        lines += _indent(failure.board, 4)
    if failure.board_after:
        lines.append("  board after the call:")
        lines += _indent(failure.board_after, 4)
    if failure.why:
        why = failure.why.splitlines() or [""]
        lines.append(f"  why: {why[0]}")
        lines += _indent("\n".join(why[1:]), 7)
    if failure.moves:
        moves = ", ".join(f"{number}. {move}" for number, move in enumerate(failure.moves, 1))
        lines.append(f"  moves: {moves}")
    return lines


def _summary_line(result: GradeResult, item: ItemResult) -> str:
    """One line per item: ``[ok] ...`` or a course-style deduction ``[-5.0 pts] ...``."""
    score = item_score(result, item)
    if item_passed(result, item):
        return f"[ok] {item.name} ({_pts(score)} / {_pts(item.max_score)})"
    lost = f"[-{_pts(item.max_score - score)} pts] {item.name}"
    if result.load_error is not None:
        return f"{lost}: not run"
    if item.error is not None:
        return f"{lost}: not checked, the grader failed on this item"
    if item.total == 0:
        return f"{lost}: nothing was checked"
    if _deductions_only(item.failures):
        return f"{lost}: {_plural(item.failed, 'deduction')}"
    unjudged = _counts_text(category_counts(f for f in item.failures if not f.judged))
    if item.failed == 0:
        return f"{lost}: {NO_ANSWER} on {item.no_answer} of {item.total} checks ({unjudged})"
    line = f"{lost}: {item.failed} of {item.total} checks failed"
    if item.no_answer:
        line += f"; {NO_ANSWER} on {item.no_answer} more ({unjudged})"
    return line


def item_report(result: GradeResult, item: ItemResult,
                visibility: str = "full", examples: int = 3) -> str:
    """One rubric item's part of the report (also a Gradescope test's output).

    >>> item = ItemResult("board untouched", 5.0, passed=8, total=8)
    >>> print(item_report(GradeResult("s.py", "s", items=(item,)), item))
    [ok] board untouched (5.0 / 5.0)
    """
    check_options(visibility, examples)
    return "\n".join([_summary_line(result, item)] + _item_body(result, item, visibility, examples))


def _item_body(result: GradeResult, item: ItemResult, visibility: str, examples: int,
               said: set[str] | None = None) -> list[str]:
    """An item's failures in detail. ``said``: the answers already shown in full in this
    report; an item whose calls all gave that same no-answer says so in one line."""
    lines: list[str] = []
    if result.load_error is not None:
        lines.append(f"Your submission could not be run: {result.load_error}")
        return lines
    if item.error is not None:
        lines.append("The grader itself failed on this item; this is not your fault, "
                     "and the instructor should report it.")
        lines.append(f"  grader error: {item.error}")
    failures = judged_first(item.failures)
    if _deductions_only(failures):
        examples = len(failures)   # each is a line of the student's own file: all of them
    elif visibility == "categories":
        if failures:
            lines.append(f"{item.name}: {_counts_text(category_counts(failures))}")
            lines.append(_HIDDEN_NOTE)
        # Notes may name positions too, so they wait for the deadline as well.
        return lines
    if item.failed == 0:
        # Nothing judged: one call with no answer says why; the rest are alike.
        examples = min(examples, 1)
        if said is not None and failures and failures[0].received in said:
            return [f"{NO_ANSWER} on every check, as above: {failures[0].received}"]
    if said is not None:
        said.update(failure.received for failure in failures[:examples]
                    if not failure.judged)
    for failure in failures[:examples]:
        lines.append("")
        lines += _failure_block(failure)
    rest = failures[examples:]
    if rest:
        lines.append("")
        lines.append(f"... and {len(rest)} more like this: {_counts_text(category_counts(rest))}")
    for note in item.notes:
        lines.append(f"note: {note}")
    return lines


def _header(result: GradeResult) -> list[str]:
    lines = [
        f"Submission: {result.submission}",
        f"Student: {result.student_id}",
        f"Score: {_num(score_of(result))} / {_num(result.max_score)}",
    ]
    if result.grader_error is not None:
        lines += [
            "",
            "GRADER ERROR: the grader itself failed, so this report may be incomplete. "
            "This is not the student's fault; instructor, please report it with this output.",
            f"  {result.grader_error}",
        ]
    answered = sum(item.passed + item.failed for item in result.items)
    unanswered = [f for item in result.items for f in item.failures if not f.judged]
    if result.load_error is None and result.items and not answered and unanswered:
        lines += ["", "No call gave an answer, so nothing could be judged (score 0). The "
                  f"first: {unanswered[0].received}"]
    if result.load_error is not None:
        kind = f" ({result.load_kind})" if result.load_kind else ""
        lines += ["", f"Your submission could not be run{kind}, so nothing was graded (score 0).",
                  result.load_error]
        if result.load_output:
            output = result.load_output
            if len(output) > _LOAD_OUTPUT_LIMIT:
                output = output[:_LOAD_OUTPUT_LIMIT] + "\n[... cut]"
            lines.append("What it printed when imported:")
            lines += _indent(output, 4)
    return lines


def _footer(result: GradeResult, visibility: str) -> list[str]:
    counts = ", ".join([
        _plural(result.calls, "call"),
        _plural(result.timeouts, "timeout"),
        _plural(result.restarts, "restart"),
    ])
    lines = [
        f"student code: {result.student_cpu_seconds:.2f} s CPU, "
        f"{result.wall_seconds:.2f} s wall, {counts}",
    ]
    # The sandbox's layers are the instructor's business (results.json's extra_data, the
    # terminal's stderr), not the student's: a map of the walls helps only to climb them.
    return lines + _timing_lines(result)


def isolation_line(result: GradeResult) -> str:
    """The sandbox's layers in one line, for the instructor.

    >>> from grader.judge.results import GradeResult
    >>> isolation_line(GradeResult("s.py", "s", isolation=("separate process",)))
    'isolation: separate process'
    """
    return "isolation: " + (", ".join(result.isolation) if result.isolation else "none recorded")


def _timing_lines(result: GradeResult) -> list[str]:
    """How the limits were set on this run, and what was not asked or not made."""
    timing = result.timing
    lines = []
    if "reference_empty_board_seconds" in timing:
        reference = timing["reference_empty_board_seconds"]
        lines.append(
            f"time limits: {timing['factor']:g} x a plain minimax on a course-style board "
            f"(it needs {reference:.2f} s for the empty 3x3 board here) for the hardest "
            f"position with as many empty squares ({timing['small'] * reference:.2f} s on small "
            f"positions); budget {timing['budget']:g} such searches ({timing['budget_seconds']:.0f} s), "
            f"{timing['budget_spent']:.1f} used")
    if result.too_slow:
        lines.append("too slow (not asked beyond): " + "; ".join(result.too_slow))
    if result.not_run:
        lines.append(f"the time budget ran out: {_plural(result.not_run, 'call')} not made "
                     f"({NO_ANSWER})")
    return lines


def _overview(result: GradeResult) -> list[str]:
    """The header, then one line per rubric item."""
    lines = _header(result)
    if result.items:
        lines.append("")
        lines += [_summary_line(result, item) for item in result.items]
    return lines


def summary_text(result: GradeResult, visibility: str) -> str:
    """Overview and footer: the part of the report that is about the whole run."""
    return "\n".join(_overview(result) + [""] + _footer(result, visibility))


def text_report(result: GradeResult, visibility: str = "full", examples: int = 3) -> str:
    """The report the instructor's terminal and the student read.

    Header and score, one line per rubric item (``[ok]`` or ``[-x pts]``), then each failed
    item in detail (see :func:`item_report`), then what the student's code cost.

    >>> from grader.judge.results import GradeResult, ItemResult
    >>> r = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 3, 4),))
    >>> "[-5.0 pts] scores: 1 of 4 checks failed" in text_report(r)
    True
    """
    check_options(visibility, examples)
    lines = _overview(result)
    said: set[str] = set()
    if result.load_error is None:
        for item in result.items:
            has_notes = bool(item.notes) and visibility == "full"
            if has_notes or not item_passed(result, item):
                title = f"--- {item.name} ({_pts(item.score)} / {_pts(item.max_score)}) "
                lines += ["", title + "-" * max(3, 70 - len(title))]
                lines += _item_body(result, item, visibility, examples, said)
    lines.append("")
    lines += _footer(result, visibility)
    return "\n".join(lines) + "\n"

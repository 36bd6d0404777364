"""The report of a grading run that a person reads (the student, the instructor).

It reads a finished :class:`~grader.judge.results.GradeResult` and returns text; nothing
here prints or grades. (Gradescope's results.json: ``results_json``; a CSV row: ``table``;
writing files: ``writers``.) The items' scores and states that those share are in
``scoring``; the likely causes of many failures, which the report names first, in
``causes``; their names are importable from here too.

The report leads with the likely cause of many failures when there is one (a ``mm_move``
that changes its board, tiers too slow or stuck), names the file, never the grader's
folders, says once how to paste a call (:func:`paste_lines`) and once how time limits are
set; each board it draws is labelled.

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

import re
from collections.abc import Iterable
from pathlib import PurePath

from grader.judge.results import NO_ANSWER, STUCK, TIME_CATEGORIES, Failure, GradeResult, ItemResult
# The likely causes and the items' scores live beside the report; their names stay
# importable from here (results_json, table and the tests import them from this module).
from grader.suite.causes import (BoardCause, TimeCause, board_cause, causes,  # noqa: F401
                                 time_cause, wrap)
# The time item's failures: out of time, not asked after a tier was too slow, and a call
# that did not return where a search takes milliseconds.
from grader.suite.scoring import (VISIBILITIES, category_counts, check_options,  # noqa: F401
                                  is_deduction, item_passed, item_score, item_state,
                                  judged_first, score_of)
from grader.timing.policy import TimePolicy, TimingError

_HIDDEN_NOTE = "(the failing positions are shown after the deadline)"


_LOAD_OUTPUT_LIMIT = 2000   # characters of what the submission printed on import
STUDENT_FUNCTIONS = ("mm_move", "move_wrapper")   # what the calls of a report may name
_LIMITS_POINTER = 'The limit: see "time limits" at the end of the report.'


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


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {category}" for category, count in counts.items())


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


def _failure_block(failure: Failure, policy: str = "") -> list[str]:
    """A failure in full. ``policy``: the time policy's sentence, said once per report
    (under "time limits"), so each failure that repeats it points there instead."""
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
        text = failure.why
        if policy and policy in text:
            text = text.replace(policy, _LIMITS_POINTER, 1)
        why = text.splitlines() or [""]
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
    body = _item_body(result, item, visibility, examples, policy=_policy_sentence(result))
    return "\n".join([_summary_line(result, item)] + body)


def _item_body(result: GradeResult, item: ItemResult, visibility: str, examples: int,
               said: set[str] | None = None, policy: str = "") -> list[str]:
    """An item's failures in detail. ``said``: the answers already shown in full in this
    report; an item whose calls all gave that same no-answer says so in one line.
    ``policy``: the time policy's sentence, which each failure points to instead."""
    lines: list[str] = []
    if result.load_error is not None:
        lines.append(f"Your submission could not be run: {_public(result, result.load_error)}")
        return lines
    if item.error is not None:
        lines.append("The grader itself failed on this item; this is not your fault, "
                     "and the instructor should report it.")
        lines.append(f"  grader error: {item.error}")
    failures = judged_first(item.failures)
    slow = time_cause(result)
    if slow is not None and slow.explains(item) and visibility == "full":
        lines.append(f"{NO_ANSWER} on {_plural(item.no_answer, 'check')} "
                     f"({_counts_text(category_counts(failures))}): see {slow.item.name!r} "
                     "for the call that decided it")
        return lines + [f"note: {note}" for note in item.notes]
    cause = board_cause(result)
    if cause is not None and item is not cause.item:
        # The cause was said at the top: say how many of these it covers.
        covered = cause.covers(item)
        if covered:
            if covered == item.failed == 1:
                share = "the failure here was on a call"
            elif covered == item.failed:
                share = f"all {covered} failures here were on calls"
            else:
                share = f"{covered} of these {item.failed} failures were on calls"
            lines.append(f"({share} that also changed the board: see {cause.item.name!r})")
    elif cause is not None:
        failures = cause.examples_first(failures)
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
        lines += _failure_block(failure, policy)
    rest = failures[examples:]
    if rest:
        lines.append("")
        lines.append(f"... and {len(rest)} more like this: {_counts_text(category_counts(rest))}")
    for note in item.notes:
        lines.append(f"note: {note}")
    return lines


# -- the whole report ----------------------------------------------------------------------------

def file_name(result: GradeResult) -> str:
    """The submission's file name, never the folders it was graded in.

    >>> file_name(GradeResult("/srv/grades/.work/unzipped/ann/mm_player.py", "ann"))
    'mm_player.py'
    """
    return PurePath(result.submission).name


def _public(result: GradeResult, text: str) -> str:
    """``text`` with the graded file's path (the grader's folders) as its name alone."""
    if result.submission and result.submission != file_name(result):
        text = text.replace(result.submission, file_name(result))
    return text


def paste_lines(result: GradeResult, functions: Iterable[str] = ("mm_move",)) -> list[str]:
    """The lines to paste into Python, in the folder of the student's file, before a call
    of the report: the board's names, then the student's ``functions``.

    A file written for the course (``import poc_ttt_provided``), one that starts a game
    when imported, or one whose name is not a module name is loaded by path with the
    course's modules provided and its game skipped (``provided.console``), which works in
    the handout and in a copy of the grader alike; any other file is simply imported.

    >>> paste_lines(GradeResult("subs/ann.py", "ann"))
    ['from provided import *', 'from ann import mm_move']
    >>> course = GradeResult("mm_player.py", "ann", course_imports=("poc_ttt_provided",))
    >>> for line in paste_lines(course):
    ...     print(line)
    from provided import *
    from provided.console import load_move_function
    mm_move = load_move_function("mm_player.py:mm_move")
    """
    name = file_name(result)
    stem = PurePath(name).stem
    functions = list(dict.fromkeys(functions))
    lines = ["from provided import *"]
    plain = (name.endswith(".py") and stem.isidentifier() and not result.course_imports
             and not result.import_calls)
    if plain:
        return lines + [f"from {stem} import {', '.join(functions)}"]
    path = name.replace("\\", "\\\\").replace('"', '\\"')
    lines.append("from provided.console import load_move_function")
    return lines + [f'{function} = load_move_function("{path}:{function}")'
                    for function in functions]


def _paste_intro(result: GradeResult, visibility: str) -> list[str]:
    """How to try the calls below, once per report (nothing when no call is shown)."""
    if visibility != "full" or result.load_error is not None:
        return []
    calls = [failure.call for item in result.items if not item_passed(result, item)
             for failure in item.failures if not is_deduction(failure)]
    functions = [name for name in _student_functions(result)
                 if any(re.search(rf"\b{name}\b", call) for call in calls)]
    if not functions:
        return []
    lines = wrap(f"To try a call below: start python3 in the folder of {file_name(result)} "
                  "and paste these lines, then the call:")
    pasted = paste_lines(result, functions)
    if any("random.seed(" in call for call in calls):
        pasted.insert(0, "import random")
    return lines + ["    " + line for line in pasted]


def _student_functions(result: GradeResult) -> tuple[str, ...]:
    """The functions a report's calls may name: its assignment's (the minimax's also
    ``move_wrapper``)."""
    try:
        from grader.assignments import get
        return tuple(dict.fromkeys(get(result.assignment).functions + STUDENT_FUNCTIONS))
    except ValueError:
        return STUDENT_FUNCTIONS


def student_label(student_id: str, name: str = "") -> str:
    """Whom a report is about: the name and the id, or the id alone when no name is known.

    >>> student_label("ada42", "Ada Lovelace"), student_label("ada42")
    ('Ada Lovelace (ada42)', 'ada42')
    """
    name = " ".join(name.split())     # one line, whatever the LMS's export held
    return f"{name} ({student_id})" if name and name != student_id else student_id


def _header(result: GradeResult, student_name: str = "") -> list[str]:
    lines = [
        f"Submission: {file_name(result)}",
        f"Student: {student_label(result.student_id, student_name)}",
        f"Score: {_num(score_of(result))} / {_num(result.max_score)}",
    ]
    if result.assignment_note:
        lines.insert(2, f"Assignment: {result.assignment_note}")
    if result.helpers:
        lines.insert(1, f"Graded with: {', '.join(result.helpers)} (its helper modules)")
    if result.grader_error is not None:
        lines += [
            "",
            "GRADER ERROR: the grader itself failed, so this report may be incomplete. "
            "This is not the student's fault; instructor, please report it with this output.",
            f"  {_public(result, result.grader_error)}",
        ]
    answered = sum(item.passed + item.failed for item in result.items)
    unanswered = [f for item in result.items for f in item.failures if not f.judged]
    if result.load_error is None and result.items and not answered and unanswered:
        lines += ["", "No call gave an answer, so nothing could be judged (score 0). The "
                  f"first: {unanswered[0].received}"]
    if result.load_error is not None:
        kind = f" ({result.load_kind})" if result.load_kind else ""
        lines += ["", f"Your submission could not be run{kind}, so nothing was graded (score 0).",
                  _public(result, result.load_error)]
        if result.load_output:
            output = result.load_output
            if len(output) > _LOAD_OUTPUT_LIMIT:
                output = output[:_LOAD_OUTPUT_LIMIT] + "\n[... cut]"
            lines.append("What it printed when imported:")
            lines += _indent(output, 4)
    for cause in causes(result):
        lines += [""] + cause.lines(result)
    for note in (import_note(result), alias_note(result),
                 *(f"note: {text}." for text in result.helper_notes)):
        if note:
            lines += [""] + wrap(note)
    return lines


def import_note(result: GradeResult) -> str:
    """One line on the games the file starts when imported, which the grader skipped.

    >>> print(import_note(GradeResult("g.py", "g", import_calls=("run_gui",)))[:59])
    note: your file calls run_gui(...) when it is imported; the
    """
    if not result.import_calls:
        return ""
    names = " and ".join(f"{name}(...)" for name in dict.fromkeys(result.import_calls))
    return (f"note: your file calls {names} when it is imported; the grader skipped that "
            f"call (running the file itself, python3 {file_name(result)}, still plays).")


def alias_note(result: GradeResult) -> str:
    """One line on each module the file imports as ``provided`` that is none of the
    course's (its own copy of the board module): the grader gave it the course's.

    >>> print(alias_note(GradeResult("g.py", "g", course_imports=("tictactoe_board",)))[:63])
    note: your file imports tictactoe_board as provided; the grader
    """
    from provided.course import course_module
    aliases = [name for name in result.course_imports if course_module(name) is None]
    if not aliases:
        return ""
    names = " and ".join(aliases)
    return (f"note: your file imports {names} as provided; the grader gave it the course's "
            "board module (poc_ttt_provided) in its place, so your calls ran against the "
            "course's TTTBoard and rules, not your copy's.")


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


def _policy(result: GradeResult) -> TimePolicy | None:
    timing = result.timing
    try:
        return TimePolicy(timing["factor"], timing["small"], timing["budget"])
    except (KeyError, TypeError, TimingError):
        return None


def _policy_sentence(result: GradeResult) -> str:
    """The policy's sentence as timeout failures carry it (see ``grader.assignments.minimax.client``)."""
    policy = _policy(result)
    return f"The limit: {policy.describe()}." if policy is not None else ""


def _budget_used(policy: TimePolicy, budget_seconds: object, spent: float,
                 reference: float) -> str:
    """The grade's time budget and what the student's code used of it, in words a student
    reads: in searches of the empty board by the yardstick minimax, and in seconds.

    >>> print(_budget_used(TimePolicy(), 199.0, 3.04, 4.42))
    all your calls together may take as long as 45 of that minimax's searches of the empty 3x3 board (about 199 s here); your code took as long as 3.0 of them (about 13 s).
    """
    about = (f" (about {budget_seconds:.0f} s here)"
             if isinstance(budget_seconds, (int, float)) else "")
    return (f"all your calls together may take as long as {policy.budget:g} of that "
            f"minimax's searches of the empty 3x3 board{about}; your code took as long as "
            f"{spent:.1f} of them "
            f"(about {_seconds(spent * reference)} s).")


def _seconds(seconds: float) -> str:
    """
    >>> _seconds(0.04), _seconds(9.46), _seconds(133.2)
    ('0.04', '9.5', '133')
    """
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}" if seconds < 10 \
        else f"{seconds:.0f}"


def _timing_lines(result: GradeResult) -> list[str]:
    """How the limits were set on this run (said once), and what was not asked or not made.

    Each call's limit is worked out when the call is made, from the reference as last
    timed, so the figures a failure gives are the ones it was held to; this paragraph gives
    the rule and the reference's time, not limits of its own that could disagree."""
    timing = result.timing
    policy = _policy(result)
    lines = []
    if isinstance(timing.get("rule"), str):   # an assignment's own words for its limits
        lines += wrap(timing["rule"])
    elif "reference_empty_board_seconds" in timing and policy is not None:
        reference = timing["reference_empty_board_seconds"]
        times = timing.get("calibrations", 1)
        # One sentence whatever the count: how often it was timed follows the budget spent
        # (a time), so the same code's report differs only in figures, not in its words.
        timed = (f"before the first call, its speed checked again as the grade goes on "
                 f"(full timings on this run: {times if isinstance(times, int) else 1}; "
                 f"{reference:.2f} s for the empty 3x3 board at the last)")
        spent = timing.get("budget_spent", 0.0)
        used = _budget_used(policy, timing.get("budget_seconds"), spent, reference)
        late = any(f.category in TIME_CATEGORIES for item in result.items
                   for f in item.failures)
        if not late and not result.not_run:   # nothing to explain: the rule is noise
            return lines + wrap(
                "time limits: every call was within its limit. A limit is measured against a "
                "plain minimax (a clone at every step, no pruning) on a board written like "
                f"the course's, timed on this machine: it needs {reference:.2f} s of CPU time "
                f"for the empty 3x3 board. A call may take {policy.factor:g} times what that "
                f"minimax needs for a position as hard, and {used}")
        lines += wrap(
            f"time limits: {policy.describe()}. That minimax is timed on this machine "
            f"{timed}, so each call's limit is worked out when the call is made: a failure "
            f"says the limit it was held to. For the whole grade, {used}")
    if result.too_slow:
        stuck = any(f.category == STUCK for item in result.items for f in item.failures)
        label = "too slow or stuck" if stuck else "too slow"
        lines.append(f"{label} (not asked beyond): " + "; ".join(result.too_slow))
    if result.not_run:
        lines.append(f"the time budget ran out: {_plural(result.not_run, 'call')} not made "
                     f"({NO_ANSWER})")
    return lines


def _overview(result: GradeResult, student_name: str = "") -> list[str]:
    """The header (with the likely cause, if one is known), then one line per rubric item."""
    lines = _header(result, student_name)
    if result.items:
        lines.append("")
        lines += [_summary_line(result, item) for item in result.items]
    return lines


def summary_text(result: GradeResult, visibility: str, student_name: str = "") -> str:
    """Overview, how to paste a call, and footer: the part of the report that is about the
    whole run (Gradescope's results.json shows it above the items' tests). ``student_name``:
    see :func:`text_report`."""
    intro = _paste_intro(result, visibility) if result.load_error is None else []
    return "\n".join(_overview(result, student_name) + ([""] + intro if intro else []) + [""]
                     + _footer(result, visibility))


def _detail_order(result: GradeResult) -> list[ItemResult]:
    """The items in rubric order, but those that hold a likely cause first."""
    first = [cause.item for cause in causes(result)]
    first = [item for index, item in enumerate(first) if item not in first[:index]]
    return first + [item for item in result.items if item not in first]


def text_report(result: GradeResult, visibility: str = "full", examples: int = 3,
                student_name: str = "") -> str:
    """The report the instructor's terminal and the student read.

    ``student_name`` (when known) is shown beside the id in the header ("Student: Ada
    Lovelace (ada42)"); it is only a label, and nothing else in the report depends on it.

    Header and score (and the likely cause of many failures, when one is known), one line
    per rubric item (``[ok]`` or ``[-x pts]``), how to paste a call, then each failed item
    in detail (see :func:`item_report`): the cause's item first, and one example for each
    item it explains; then what the student's code cost and the time limits, once.

    >>> from grader.judge.results import GradeResult, ItemResult
    >>> r = GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 3, 4),))
    >>> "[-5.0 pts] scores: 1 of 4 checks failed" in text_report(r)
    True
    """
    check_options(visibility, examples)
    lines = _overview(result, student_name)
    said: set[str] = set()
    policy = _policy_sentence(result)
    named = causes(result)
    if result.load_error is None:
        intro = _paste_intro(result, visibility)
        if intro:
            lines += [""] + intro
        for item in _detail_order(result):
            has_notes = bool(item.notes) and visibility == "full"
            if has_notes or not item_passed(result, item):
                title = f"--- {item.name} ({_pts(item.score)} / {_pts(item.max_score)}) "
                lines += ["", title + "-" * max(3, 70 - len(title))]
                # A report with a named cause is kept short: the cause's items show two
                # examples, the others one.
                shown = examples
                if named:
                    is_cause = any(item is cause.item for cause in named)
                    shown = min(examples, 2 if is_cause else 1)
                lines += _item_body(result, item, visibility, shown, said, policy)
    lines.append("")
    lines += _footer(result, visibility)
    return "\n".join(lines) + "\n"

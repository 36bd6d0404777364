"""What the pages and the JSON API say about a submission, from the database's rows alone
(nothing here knows of requests): its wait, when to ask again, the results a person may see,
the final score's parts, and the report split into the parts a page shows, in the terminal
report's order (the lead, the lines to paste, the rubric, each item's failures, the cause's
item first).

    view = report_view(row, deadlines)     # the lead, the rubric rows, each item's failures
    live = live_view(store, queue, settings, row)   # "grading now: 12 s so far", the items
    data = submission_json(store, queue, settings, row)   # GET /api/submissions/ID
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from grader.service.course import course_dates
from grader.service.course.intake import Deadlines, show_wait
from grader.service.course.records import FinalScore
from grader.service.course.storage import Store, Submission
from grader.service.course.times import now, parse_time
from grader.service.pages.report_parts import Block, Section, parse_block, parse_report
from grader.service.queue import GradingQueue, estimate_wait, read_progress
from grader.service.settings import ServiceSettings

# Below this many seconds an estimate is noise: a running grade's page says how long it has
# been graded instead ("grading now: 40 s so far"), never "report in about 1 s" for 40 s.
MIN_ESTIMATE = 3.0
# A test of results.json that is not a rubric item: a failed item's full feedback, which
# Gradescope (and the page) show once the deadline has passed (``--visibility categories``).
IN_FULL = ": the failures in full"
# The report's line when the grader was given the assignment (``grader.assignments.choose``),
# as every hand-in of the page is graded; it is among the report's first lines.
TOLD = re.compile(r"(Assignment: .*), as the grader was told \(--assignment [\w-]+\)$")
HEADER_LINES = 6


# --- the wait ------------------------------------------------------------------------------

def _typical(recent: list[float]) -> float:
    """How long a grading run takes here (the median of the last ones)."""
    return estimate_wait(1, 1, recent)


def run_left(elapsed: float, typical: float) -> float:
    """Seconds a grading run that has run ``elapsed`` seconds may still take: what is left
    of a typical run or, once it has gone past most of that, a quarter of its time so far
    (a run that is long already is likely to go on: the estimate grows with it, it does not
    sit at a floor).

    >>> run_left(2.0, 10.0), run_left(40.0, 10.0)
    (8.0, 10.0)
    """
    return max(typical - elapsed, elapsed / 4)


def _elapsed(row: Submission) -> float:
    """Seconds since the row's grading run started (0 when it has not)."""
    if row.status != "running" or not row.started_at:
        return 0.0
    return max(0.0, (now() - parse_time(row.started_at)).total_seconds())


def _free_slots(queue: GradingQueue, running: int) -> int:
    return max(queue.jobs - running, 0)


def wait_for(store: Store, queue: GradingQueue, row: Submission) -> float | None:
    """Estimated seconds until ``row`` has its report; None when it has one, or when it is
    graded and a typical run's time has gone by (then only the time so far is honest)."""
    recent = queue.recent_seconds()      # kept by the queue: no query at every poll
    typical = _typical(recent)
    if row.status == "queued":
        started = [parse_time(moment) for moment in store.running_started() if moment]
        position = store.queue_position(row.id)
        ahead = position - _free_slots(queue, len(started))
        if ahead <= 0:            # a grader is free (or has just claimed it): it starts now
            return typical
        moment = now()
        left = sum(run_left((moment - start).total_seconds(), typical) for start in started)
        return round(estimate_wait(ahead, queue.jobs, recent)
                     + left / max(queue.jobs, 1), 1)
    if row.status == "running":
        left = typical - _elapsed(row)
        return round(left, 1) if left >= MIN_ESTIMATE else None
    return None


def poll_after(status: str, wait: float | None) -> float | None:
    """Seconds a page or script should wait before asking about a submission again: every
    second while it is graded (its items come live), every tenth of the estimated wait while
    it is queued (1 to 10 s: a class of 300 waiting at a deadline does not poll the server
    300 times a second), None once it is finished.

    >>> poll_after("running", None), poll_after("queued", 600.0), poll_after("done", None)
    (1.0, 10.0, None)
    """
    if status in ("done", "error"):
        return None
    if status == "queued" and wait is not None:
        return round(min(10.0, max(1.0, wait / 10)), 1)
    return 1.0


def status_text(phase: str, position: int, elapsed: float, wait: float | None) -> str:
    """What the page says after the status word (``phase``), from the same facts as the
    JSON: the place in the queue, or the time graded so far, and the estimate when there is
    an honest one.

    >>> status_text("queued", 3, 0.0, 42.0)
    'number 3 in the queue, report in about 42 s'
    >>> status_text("running", 0, 40.0, None)
    'grading now: 40 s so far'
    >>> status_text("running", 0, 0.2, 12.0)
    'grading now, report in about 12 s'
    """
    about = f"report in about {show_wait(wait)}" if wait is not None else ""
    if phase == "queued":
        return f"number {position} in the queue" + (f", {about}" if about else "")
    if phase == "running":
        text = "grading now"
        if elapsed >= 1:
            text += f": {show_wait(elapsed)} so far"
        return text + (f", {about}" if about else "")
    return ""


def live_view(store: Store, queue: GradingQueue, settings: ServiceSettings,
              row: Submission) -> dict[str, Any]:
    """The live part of a submission's page, and of its JSON: ``phase`` ("queued" while it
    waits for a grader, "running" once one is free for it or has it, else the status),
    ``text`` (see :func:`status_text`), the rubric items finished (``items``: name, score,
    max_score) and those still to come (``pending``: name, max_score).

    A queued submission that a free grader is about to take says "grading now", never
    "number 0 in the queue"."""
    wait = wait_for(store, queue, row)
    position = store.queue_position(row.id) if row.status == "queued" else 0
    phase = row.status
    if row.status == "queued":
        free = _free_slots(queue, len(store.running_started()))
        if position <= free:
            phase = "running"
    elapsed = _elapsed(row)
    items: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    if row.status == "running":
        items = [{"name": item["name"], "score": item["score"], "max_score": item["max_score"]}
                 for item in read_progress(settings.data, row.id, queue.weights)]
        done = {item["name"] for item in items}
        pending = [{"name": name, "max_score": points} for name, points in queue.weights.items()
                   if points and name not in done]
    return {"phase": phase, "position": position, "elapsed": round(elapsed, 1),
            "estimated_wait": wait, "text": status_text(phase, position, elapsed, wait),
            "poll_after": poll_after(row.status, wait), "items": items, "pending": pending}


# --- the results a person may see ----------------------------------------------------------

def student_results(row: Submission, deadlines: Deadlines | None,
                    instructor: bool = False) -> dict[str, Any] | None:
    """The results.json a person may see: the instructor all of it; a student what Gradescope
    would show them (no hidden tests, no extra_data; "after the due date" tests only after
    the deadline; ``deadlines`` None: there is none)."""
    if not row.results_json:
        return None
    try:
        results = json.loads(row.results_json)
    except ValueError:
        return None
    if instructor:
        return results
    after_deadline = (deadlines or Deadlines()).passed(now())
    shown = ("visible", "after_due_date", "after_published") if after_deadline else ("visible",)
    results["tests"] = [test for test in results.get("tests", [])
                        if test.get("visibility", "visible") in shown]
    results.pop("extra_data", None)
    return results


def _rubric_tests(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The tests that are rubric items (not an item's full feedback for after the deadline)."""
    return [test for test in results.get("tests", [])
            if test.get("visibility") != "after_due_date"
            and not str(test.get("name", "")).endswith(IN_FULL)]


def _in_full(results: dict[str, Any]) -> dict[str, str]:
    """Each item's full feedback that this person may see now (item name: its output)."""
    return {str(test["name"])[:-len(IN_FULL)]: str(test.get("output") or "")
            for test in results.get("tests", [])
            if str(test.get("name", "")).endswith(IN_FULL)}


# --- the final score -----------------------------------------------------------------------

@dataclass(frozen=True)
class ScorePart:
    """A line of the final score's explanation: "2 days late", "-20", "20% of the maximum
    score"."""

    label: str
    points: str
    detail: str = ""


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


def score_parts(final: FinalScore | None) -> tuple[ScorePart, ...]:
    """How the final score is made, when it is not the grader's alone: the grader's score,
    the late penalty, the instructor's adjustment (with its note), the final score.

    >>> from grader.service.course.records import LatePolicy
    >>> from datetime import timedelta
    >>> final = FinalScore.compute(80.0, 100.0, late_by=timedelta(hours=30),
    ...                            policy=LatePolicy.parse("10%/day"))
    >>> [(part.label, part.points) for part in score_parts(final)]
    [("The grader's score", '80 / 100'), ('2 days late', '-20'), ('Final score', '60 / 100')]
    """
    if final is None or not final.changed or final.raw is None:
        return ()
    out_of = f" / {_number(final.max_score)}" if final.max_score is not None else ""
    parts = [ScorePart("The grader's score", _number(final.raw) + out_of)]
    if final.penalty_points:
        days = f"{final.late_days} day{'s' if final.late_days != 1 else ''} late"
        parts.append(ScorePart(days, f"-{_number(final.penalty_points)}",
                               f"{_number(final.penalty_fraction * 100)}% of the maximum "
                               f"score; the late policy: {final.policy.describe()}"))
    if final.adjustment is not None:
        adjustment = final.adjustment
        parts.append(ScorePart("Adjusted by your instructor", f"{adjustment.points:+g}",
                               adjustment.note))
    if final.final is not None:
        parts.append(ScorePart("Final score", _number(final.final) + out_of))
    return tuple(parts)


def score_line(final: FinalScore | None, late: bool = False) -> str:
    """The report's score line: the final score first and, when it is not the grader's, the
    grader's and what changed it. Every report (the page, its text, ``student submit``)
    says it in these words, so none shows the grader's score as if it were the final one.

    >>> from grader.service.course.records import LatePolicy
    >>> from datetime import timedelta
    >>> score_line(FinalScore.compute(100.0, 100.0, late_by=timedelta(hours=5),
    ...                               policy=LatePolicy.parse("10%/day")))
    "Final score: 90 / 100 (the grader's 100, late penalty -10)"
    >>> score_line(FinalScore.compute(100.0, 100.0), late=True)
    'Score: 100 / 100 (handed in late, without a penalty)'
    """
    if final is None or final.raw is None:
        return ""
    out_of = f" / {_number(final.max_score)}" if final.max_score is not None else ""
    if not final.changed or final.final is None:
        after = " (handed in late, without a penalty)" if late else ""
        return f"Score: {_number(final.raw)}{out_of}{after}"
    why = [f"the grader's {_number(final.raw)}"]
    if final.penalty_points:
        why.append(f"late penalty -{_number(final.penalty_points)}")
    if final.adjustment is not None:
        why.append(f"adjusted by your instructor {final.adjustment.points:+g}")
    return f"Final score: {_number(final.final)}{out_of} ({', '.join(why)})"


def with_score_line(report: str, line: str) -> str:
    """The text report as the page gives it: its "Score: ..." line (the grader's score)
    replaced by ``line``, and its "Assignment: ..." line saying that the page chose the
    assignment (the page tells the grader which one; a student who named none did not).

    >>> with_score_line("Submission: a.py\\nScore: 100 / 100\\n", "Final score: 90 / 100")
    'Submission: a.py\\nFinal score: 90 / 100\\n'
    >>> with_score_line("Assignment: Monte Carlo (montecarlo), as the grader was told "
    ...                 "(--assignment montecarlo)", "")
    'Assignment: Monte Carlo (montecarlo), the one it was handed in for'
    """
    lines = report.split("\n")
    for index, text in enumerate(lines):
        told = TOLD.match(text) if index < HEADER_LINES else None
        if told:
            lines[index] = f"{told.group(1)}, the one it was handed in for"
        elif line and text.startswith("Score: "):
            lines[index] = line
            line = ""                    # the first such line only
    return "\n".join(lines)


# What a score's JSON names when its caller names no assignment: a course's first before it
# holds any (course_assignments.DEFAULT). Callers with a submission pass its own.
ASSIGNMENT = "minimax"


def scores_json(score: float | None, final: FinalScore | None,
                assignment: str = ASSIGNMENT) -> dict[str, Any]:
    """The four words every submission's JSON uses, always all four (None where none
    applies): ``score`` the grader's, ``penalty`` the late penalty's points (negative, as
    the gradebook CSV writes it), ``adjustment`` the instructor's points, ``final_score``
    what counts (the grader's when no records apply); and the ``assignment`` (its name) they
    are of.

    >>> from datetime import timedelta
    >>> from grader.service.course.records import LatePolicy
    >>> late = FinalScore.compute(80.0, 100.0, late_by=timedelta(hours=5),
    ...                           policy=LatePolicy.parse("10%/day"))
    >>> {key: value for key, value in scores_json(80.0, late).items() if key != "assignment"}
    {'score': 80.0, 'penalty': -10.0, 'adjustment': None, 'final_score': 70.0}
    >>> scores_json(None, None)["final_score"] is None
    True
    >>> scores_json(100.0, None, "montecarlo")["assignment"]
    'montecarlo'
    """
    if final is None:
        return {"assignment": assignment, "score": score, "penalty": None, "adjustment": None,
                "final_score": score}
    adjustment = final.adjustment
    return {"assignment": assignment, "score": score,
            "penalty": -final.penalty_points if final.penalty_points else None,
            "adjustment": adjustment.points if adjustment is not None else None,
            "final_score": final.final}


def score_details(final: FinalScore | None) -> dict[str, Any]:
    """What explains the penalty and the adjustment (each None when absent): the days
    late and the share of the maximum they cost, the adjustment's note, who set it, when.

    >>> score_details(None)["adjustment_note"] is None
    True
    """
    penalised = final is not None and bool(final.penalty_points)
    adjustment = final.adjustment if final is not None else None
    return {"late_days": final.late_days if penalised else None,
            "penalty_fraction": final.penalty_fraction if penalised else None,
            "adjustment_note": adjustment.note if adjustment is not None else None,
            "adjustment_by": adjustment.set_by if adjustment is not None else None,
            "adjustment_at": adjustment.set_at if adjustment is not None else None}


# --- the report ----------------------------------------------------------------------------

def report_view(row: Submission, deadlines: Deadlines | None, instructor: bool = False,
                final: FinalScore | None = None) -> dict[str, Any] | None:
    """What the report part of a page shows, in the terminal report's order: the lead (the
    likely cause, a file that cannot run, a game started at import), the lines to paste,
    the rubric table, each failed item's details (the cause's item first), the time
    limits; and the score (the final one, with its parts, when ``final`` changes it).

    The parts come from the stored text report (``row.report_text``); a row without one
    shows each item's output from results.json. A file that cannot run has one headline
    and one error, never the same error under each item.
    """
    results = student_results(row, deadlines, instructor)
    if results is None:
        return None
    rubric = _rubric_tests(results)
    rows = []
    for test in rubric:
        extra = test.get("extra_data") or {}
        rows.append({"name": test.get("name", ""), "score": test.get("score", 0),
                     "max_score": test.get("max_score", 0),
                     "status": extra.get("state") or test.get("status", ""),
                     "passed": extra.get("passed"), "total": extra.get("total")})
    in_full = _in_full(results)
    parts = parse_report(row.report_text)
    if parts is not None:
        sections = tuple(_with_full(section, in_full) for section in parts.sections)
    else:
        # No text report (an older row): the summary of results.json has the same lead and
        # lines to paste; each item's details come from its test's output.
        parts = parse_report(str(results.get("output") or ""))
        sections = _sections_of(rubric, in_full)
    lead = parts.lead if parts is not None else ()
    paste = parts.paste if parts is not None else None
    footer = parts.footer if parts is not None else ()
    every = json.loads(row.results_json or "{}").get("tests", [])
    cannot_run = next((paragraph for paragraph in lead if paragraph.kind == "cannot-run"), None)
    parts_of_score = score_parts(final)
    score = results.get("score")
    max_score = row.max_score
    if parts_of_score and final is not None:
        score, max_score = final.final, final.max_score
    line = score_line(final, row.late)
    return {"score": score, "max_score": max_score, "score_parts": parts_of_score,
            "raw_score": results.get("score"), "score_line": line,
            "lead": lead, "paste": paste, "cannot_run": cannot_run,
            "rows": rows, "sections": sections, "footer": footer,
            "summary": with_score_line(row.report_text or str(results.get("output") or ""),
                                       line),
            "hidden_until_deadline": len(every) > len(results.get("tests", []))}


def _failure_blocks(output: str) -> tuple[Block, ...]:
    """An item's output from results.json as blocks, without its first line (the item's
    line of the overview, which the section's title shows) when more follows."""
    lines = output.splitlines()
    if len(lines) > 1 and lines[0].startswith("["):
        lines = lines[1:]
    return tuple(parse_block(text) for text in _paragraphs("\n".join(lines)))


def _paragraphs(text: str) -> list[str]:
    """Paragraphs of a report (blank-line separated), each kept as it is."""
    found, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            found.append("\n".join(current))
            current = []
    if current:
        found.append("\n".join(current))
    return found


def _with_full(section: Section, in_full: dict[str, str]) -> Section:
    """``section`` with the item's failures in full when this person may now see them
    (``--visibility categories``, after the deadline), in place of the counts."""
    output = in_full.get(section.name)
    if not output:
        return section
    return Section(section.name, section.score, section.max_score, _failure_blocks(output),
                   section.is_cause)


def _sections_of(rubric: list[dict[str, Any]], in_full: dict[str, str]) -> tuple[Section, ...]:
    """Each failed item's details from results.json alone (a row without a text report).
    Items that were not run are left out: the file's error is said once, not per item."""
    sections = []
    for test in rubric:
        name = str(test.get("name", ""))
        state = (test.get("extra_data") or {}).get("state")
        output = in_full.get(name) or str(test.get("output") or "")
        if test.get("status") == "passed" or state == "not run" or not output.strip():
            continue
        blocks = _failure_blocks(output)
        if blocks:
            sections.append(Section(name, _number(float(test.get("score", 0))),
                                    _number(float(test.get("max_score", 0))), blocks))
    return tuple(sections)


# --- the pages and the JSON ----------------------------------------------------------------

def page_context(store: Store, queue: GradingQueue, settings: ServiceSettings,
                 row: Submission, instructor: bool = False,
                 final: FinalScore | None = None,
                 deadlines: Deadlines | None = None) -> dict[str, Any]:
    """What ``submission.html`` shows of a submission (the routes add the URLs): the row
    (its title is the student's count of hand-ins, ``row.ordinal``), whose it is, its live
    status and items, its report. ``deadlines``: the student's own (default: the course's)."""
    return {"row": row, "instructor": instructor, "person": store.student(row.student),
            "final": final, "live": live_view(store, queue, settings, row),
            "report": report_view(row, deadlines or course_dates.read(store).deadlines,
                                   instructor, final)}


def submission_json(store: Store, queue: GradingQueue, settings: ServiceSettings,
                    row: Submission, instructor: bool = False,
                    final: FinalScore | None = None,
                    deadlines: Deadlines | None = None) -> dict[str, Any]:
    """``GET /api/submissions/ID``: the status, the place in the queue, the live items, the
    result and the final score's parts.

    ``status`` is the database's; ``phase`` and ``status_text`` are what the page says
    (a queued submission that a free grader takes now is "running": "grading now").
    ``items`` are the rubric items finished (all of them once it is done), ``pending``
    those still to come while it is graded. ``deadlines``: the student's own (default:
    the course's).
    """
    live = live_view(store, queue, settings, row)
    results = student_results(row, deadlines or course_dates.read(store).deadlines,
                              instructor)
    items = live["items"]
    if results is not None:
        items = [{"name": test.get("name"), "score": test.get("score"),
                  "max_score": test.get("max_score")} for test in _rubric_tests(results)]
    done = row.status == "done"
    line = score_line(final, row.late) if done else ""
    return {"id": row.id, "number": row.ordinal, "status": row.status, "phase": live["phase"],
            "status_text": live["text"], "received_at": row.received_at,
            "filename": row.filename, "size": row.size, "sha256": row.sha256,
            "late": row.late, "queue_position": live["position"],
            "estimated_wait": live["estimated_wait"], "elapsed": live["elapsed"],
            "poll_after": live["poll_after"],
            "started_at": row.started_at, "finished_at": row.finished_at,
            "attempts": row.attempts, "config": row.config, "items": items,
            "pending": live["pending"] if results is None else [],
            "max_score": row.max_score if done else None,
            **scores_json(row.score if done else None, final if done else None,
                          row.assignment),
            **score_details(final if done else None),
            "score_text": line if done and line else None,
            "error": row.error if row.status == "error" else None,
            "results": results,
            "report": with_score_line(row.report_text, line)
            if (done or instructor) and row.report_text else None}

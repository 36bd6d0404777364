"""What the pages and the JSON API say about a submission, from the database's rows alone
(nothing here knows of requests): its wait, when to ask again, the results a person may see,
and the report split into the parts a page shows.

    view = report_view(row, deadlines)     # the score, the rubric rows, each item's failures
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from grader.service.intake import (Deadlines)
from grader.service.queue import GradingQueue, estimate_wait, read_progress
from grader.service.storage import Store, SubmissionRow
from grader.service.settings import ServiceSettings
from grader.service.times import now, parse_time

def wait_for(store: Store, queue: GradingQueue, row: SubmissionRow) -> float | None:
    """Estimated seconds until ``row`` has its report (None when it has one)."""
    recent = store.recent_seconds()
    if row.status == "queued":
        return estimate_wait(store.queue_position(row.id), queue.jobs, recent) + \
            _running_left(store, recent) / max(queue.jobs, 1)
    if row.status == "running" and row.started_at:
        elapsed = (now() - parse_time(row.started_at)).total_seconds()
        return max(1.0, estimate_wait(1, 1, recent) - elapsed)
    return None


def _running_left(store: Store, recent: list[float]) -> float:
    typical = estimate_wait(1, 1, recent)
    moment = now()
    return sum(max(0.0, typical - (moment - parse_time(started)).total_seconds())
               for started in store.running_started() if started)


def student_results(row: SubmissionRow, deadlines: Deadlines,
                    instructor: bool = False) -> dict[str, Any] | None:
    """The results.json a person may see: the instructor all of it; a student what Gradescope
    would show them (no hidden tests, no extra_data; "after the due date" tests only after
    the deadline)."""
    if not row.results_json:
        return None
    try:
        results = json.loads(row.results_json)
    except ValueError:
        return None
    if instructor:
        return results
    after_deadline = deadlines.passed(now())
    shown = ("visible", "after_due_date", "after_published") if after_deadline else ("visible",)
    results["tests"] = [test for test in results.get("tests", [])
                        if test.get("visibility", "visible") in shown]
    results.pop("extra_data", None)
    return results


def report_view(row: SubmissionRow, deadlines: Deadlines,
                instructor: bool = False) -> dict[str, Any] | None:
    """What the report part of a page shows: the score, the rubric table, and each item's
    failures as the terminal report gives them, split into blocks (a call to paste, the
    board, expected and received, why)."""
    results = student_results(row, deadlines, instructor)
    if results is None:
        return None
    rows, sections = [], []
    for test in results.get("tests", []):
        extra = test.get("extra_data") or {}
        rows.append({"name": test.get("name", ""), "score": test.get("score", 0),
                     "max_score": test.get("max_score", 0),
                     "status": extra.get("state") or test.get("status", ""),
                     "passed": extra.get("passed"), "total": extra.get("total")})
        output = str(test.get("output") or "")
        if test.get("status") != "passed" and output.strip():
            sections.append({"name": test.get("name", ""), "score": test.get("score", 0),
                             "max_score": test.get("max_score", 0),
                             "blocks": [_block(text) for text in _blocks(output)]})
    every = json.loads(row.results_json or "{}").get("tests", [])
    return {"score": results.get("score"), "max_score": row.max_score,
            "summary": row.report_text or str(results.get("output") or ""),
            "rows": rows, "sections": sections,
            "hidden_until_deadline": len(every) > len(results.get("tests", []))}


def _blocks(text: str) -> list[str]:
    """Paragraphs of a report (blank-line separated), each kept as it is."""
    blocks, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def _block(text: str) -> dict[str, str]:
    """A failure's block: its call (to paste) apart from the rest, when it starts with one."""
    first, _, rest = text.partition("\n")
    for function in ("mm_move(", "move_wrapper(", "play_game("):
        if first.startswith(function) and " expected " in first:
            call, _, verdict = first.partition(" expected ")
            return {"call": call, "verdict": "expected " + verdict, "text": rest}
    return {"call": "", "verdict": "", "text": text}


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


def submission_json(request: Request, row: SubmissionRow, instructor: bool = False) -> dict:
    """``GET /api/submissions/ID``: the status, the place in the queue, and the result."""
    state = request.app.state
    store: Store = state.store
    queue: GradingQueue = state.queue
    settings: ServiceSettings = state.settings
    wait = wait_for(store, queue, row)
    results = student_results(row, settings.deadlines, instructor)
    if results is not None:
        items = [{"name": test.get("name"), "score": test.get("score"),
                  "max_score": test.get("max_score")} for test in results.get("tests", [])]
    elif row.status == "running":
        items = [{"name": item["name"], "score": item["score"], "max_score": item["max_score"]}
                 for item in read_progress(settings.data, row.id, queue.weights)]
    else:
        items = []
    done = row.status == "done"
    return {"id": row.id, "status": row.status, "received_at": row.received_at,
            "filename": row.filename, "size": row.size, "sha256": row.sha256,
            "late": row.late, "queue_position": store.queue_position(row.id),
            "estimated_wait": None if wait is None else round(wait, 1),
            "poll_after": poll_after(row.status, wait),
            "started_at": row.started_at, "finished_at": row.finished_at,
            "attempts": row.attempts, "config": row.config, "items": items,
            "score": row.score if done else None,
            "max_score": row.max_score if done else None,
            "error": row.error if row.status == "error" else None,
            "results": results,
            "report": row.report_text if (done or instructor) else None}



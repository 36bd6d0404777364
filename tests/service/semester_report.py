"""What the semester drill (semester_drill.py) must show, from the records: the course's
database, the page's gradebook, and what the LMS received.

- every hand-in a student sent was received once: in the database once (none lost, none
  doubled), graded once (one result; a regraded one has exactly the result it replaced in
  ``earlier_results``);
- each gradebook line is explained: the grader's score is its counted hand-in's result, the
  penalty is 10 points when that hand-in was after the student's deadline (their own, with
  an extension), the adjustment is the instructor's, and final = score - penalty +
  adjustment;
- the LMS holds that final score for each student and assignment, on that assignment's
  line item, and received it within ``DELIVERY_SECONDS`` of the moment it could be sent: the
  grade's own time (the score's timestamp: when it changed), or the LMS's return when it was
  down then, or the server's restart when it was down then.

    settle(drill, limit=600)
    report = check(drill)
    assert report.problems == [], report.text()
"""

from __future__ import annotations

import csv
import math
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from semester_drill import Drill

DELIVERY_SECONDS = 60.0
PENALTY_POINTS = 10.0        # semester_drill.PENALTY of a 100-point assignment


@dataclass
class Report:
    """The drill's findings: ``problems`` (empty when everything holds) and the figures."""

    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def need(self, condition: bool, problem: str) -> None:
        if not condition:
            self.problems.append(problem)

    def say(self, line: str) -> None:
        self.lines.append(line)

    def text(self) -> str:
        shown = self.lines + ([f"PROBLEMS ({len(self.problems)}):"]
                              + [f"  {one}" for one in self.problems[:40]]
                              if self.problems else ["no problem found"])
        return "\n".join(shown)


def database(drill: Drill) -> sqlite3.Connection:
    connection = sqlite3.connect(drill.data / "course.sqlite3", timeout=30)
    connection.row_factory = sqlite3.Row
    return connection


def when(text: str | None) -> float:
    """An ISO time of the database (or of a score) as time.time() counts."""
    return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp() if text else 0.0


def settle(drill: Drill, limit: float) -> bool:
    """Wait (up to ``limit`` seconds) until nothing is queued or running and no grade waits
    in the outbox; whether it settled."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with database(drill) as db:
            busy = db.execute("SELECT COUNT(*) FROM submissions WHERE status IN "
                              "('queued', 'running')").fetchone()[0]
            waiting = db.execute("SELECT COUNT(*) FROM lti_outbox WHERE status = "
                                 "'pending'").fetchone()[0]
        if not busy and not waiting:
            drill.events.finished = time.time()
            return True
        time.sleep(0.5)
    return False


def gradebook(drill: Drill) -> dict[tuple[str, str], dict[str, float | None]]:
    """The page's gradebook (plain, both assignments): (student, assignment) -> its four
    numbers (None where the cell is empty)."""
    answer = drill.api("GET", "/api/gradebook.csv?format=plain")
    assert answer.status_code == 200, answer.text[:300]
    rows = list(csv.DictReader(answer.text.lstrip("\ufeff").splitlines()))
    book = {}
    for row in rows:
        for assignment in ("minimax", "montecarlo"):
            book[(row["student_id"], assignment)] = {
                word: float(row[f"{assignment} {word}"]) if row[f"{assignment} {word}"] else None
                for word in ("score", "penalty", "adjustment", "final_score")}
    return book


def check(drill: Drill) -> Report:
    """Every claim of the module's docstring, checked; the report's lines."""
    report = Report()
    with database(drill) as db:
        rows = {int(row["id"]): dict(row) for row in db.execute("SELECT * FROM submissions")}
        earlier = {int(row["submission"]): int(row["n"]) for row in db.execute(
            "SELECT submission, COUNT(*) AS n FROM earlier_results GROUP BY submission")}
        outbox = {row["status"]: int(row["n"]) for row in db.execute(
            "SELECT status, COUNT(*) AS n FROM lti_outbox GROUP BY status")}
    hand_ins = [one for student in drill.students for one in student.hand_ins]
    _received(report, drill, hand_ins, rows, earlier)
    _books(report, drill, rows)
    _delivery(report, drill)
    report.say(f"the outbox: {outbox}")
    return report


def _received(report: Report, drill: Drill, hand_ins: list[Any], rows: dict[int, dict],
              earlier: dict[int, int]) -> None:
    events = drill.events
    received = [one for one in hand_ins if one.number is not None]
    # A refusal counts against the server unless the drill's own client sent it after the
    # assignment closed for its student (its client is on the same cores as the grading).
    students = {student.sid: student for student in drill.students}
    sent_late = [one for one in hand_ins if one.refused
                 and one.posted_at > drill.closing_of(students[one.student], one.assignment)]
    refused = [one for one in hand_ins if one.refused and one not in sent_late]
    by_content: dict[tuple[str, str], list[int]] = {}
    for number, row in rows.items():
        by_content.setdefault((row["student"], row["sha256"]), []).append(number)
    lost = [one for one in hand_ins if not one.refused and
            (one.number not in rows or (one.student, one.sha256) not in by_content)]
    doubled = {key: numbers for key, numbers in by_content.items() if len(numbers) > 1}
    not_done = [number for number, row in rows.items() if row["status"] != "done"]
    regraded = {number for number, row in rows.items() if row["regrade"]} | set(earlier)
    twice = [number for number, count in earlier.items() if count > 1]
    report.need(not lost, f"lost hand-ins: {[(one.student, one.assignment) for one in lost][:10]}")
    report.need(not doubled, f"doubled hand-ins: {list(doubled.values())[:10]}")
    report.need(not refused, f"refused hand-ins: {[(o.student, o.refused) for o in refused][:10]}")
    report.need(not not_done, f"not graded: {not_done[:10]}")
    report.need(not twice, f"graded more than once (besides the regrade): {twice[:10]}")
    report.need(len(rows) == len(received), f"{len(rows)} submissions in the database for "
                f"{len(received)} received hand-ins")
    # Late: received after the student's deadline (their own with an extension).
    for one in received:
        row = rows.get(one.number, {})
        after = when(row.get("received_at")) > drill.deadline_of(students[one.student],
                                                                 one.assignment)
        report.need(bool(row.get("late")) == after, f"{one.student} {one.assignment} hand-in "
                    f"{one.number}: marked late {bool(row.get('late'))}, received "
                    f"{'after' if after else 'before'} the deadline")
        one.late = after
    late = [one for one in received if one.late]
    report.say(f"{len(hand_ins)} hand-ins sent by {len(drill.students)} students: "
               f"{len(received)} received ({events.found_after_restart} found in the "
               f"history after the SIGKILL, {events.resent} sent again), {len(refused)} "
               f"refused ({len(sent_late)} more sent by the drill after their assignment "
               f"closed: refused rightly), {len(lost)} lost, {len(doubled)} doubled; {len(rows) - len(not_done)} "
               f"graded, each once; {len(regraded)} regraded under the new configuration; "
               f"{len(late)} late")
    report.figures.update(received=len(received), sent_late=len(sent_late), lost=len(lost), doubled=len(doubled),
                          graded=len(rows) - len(not_done), regraded=len(regraded))


def _books(report: Report, drill: Drill, rows: dict[int, dict]) -> None:
    """The gradebook's four numbers of each student and assignment, from the records; and
    the LMS's score equal to its final."""
    book = gradebook(drill)
    platform = drill.platform
    assert platform is not None
    explained = 0
    for student in drill.students:
        user = platform.users[student.key].user_id
        for assignment in ("minimax", "montecarlo"):
            mine = [one for one in student.hand_ins if one.assignment == assignment
                    and one.number is not None]
            if not mine:
                continue
            counted = mine[-1]                      # the course counts the latest
            line = book.get((student.sid, assignment))
            where = f"{student.sid} {assignment}"
            if line is None:
                report.need(False, f"{where}: no gradebook line")
                continue
            row = rows[counted.number]
            penalty = PENALTY_POINTS if counted.late else 0.0
            adjustment = drill.events.adjusted.get(counted.number, (0.0, 0.0))[0]
            expected = max(0.0, row["score"] - penalty + adjustment)
            report.need(line["score"] == row["score"],
                        f"{where}: gradebook score {line['score']}, result {row['score']}")
            report.need((line["penalty"] or 0.0) == -penalty,     # the CSV writes it negative
                        f"{where}: penalty {line['penalty']}, expected {-penalty}")
            report.need((line["adjustment"] or 0.0) == adjustment,
                        f"{where}: adjustment {line['adjustment']}, expected {adjustment}")
            report.need(math.isclose(line["final_score"] or 0.0, expected, abs_tol=0.011),
                        f"{where}: final {line['final_score']}, from the records {expected}")
            standing = platform.results.get((drill.items[assignment], user))
            given = standing.get("scoreGiven") if standing else None
            report.need(given is not None and math.isclose(given, line["final_score"] or 0.0,
                                                           abs_tol=0.011),
                        f"{where}: the LMS holds {given}, the gradebook {line['final_score']}")
            explained += 1
    report.say(f"{explained} final grades (student x assignment) in the gradebook, each "
               "explained by its records (result - late penalty + adjustment) and each the "
               "score the LMS holds")
    report.figures["explained"] = explained


def _delivery(report: Report, drill: Drill) -> None:
    """How long each standing score took to reach the LMS from when it could be sent."""
    events, platform = drill.events, drill.platform
    assert platform is not None
    lags = []
    late = []
    for record in platform.accepted_scores():
        key = (record.line_item_id, record.body["userId"])
        if platform.results.get(key, {}).get("timestamp") != record.body["timestamp"]:
            continue                      # superseded by a later score: not the standing one
        changed = when(record.body["timestamp"])
        possible = changed
        if events.down <= changed < events.up:
            possible = events.up           # the LMS was down: possible once it was back
        if events.killed <= changed < events.restarted:
            possible = max(possible, events.restarted)
        lag = record.received_at - possible
        lags.append(lag)
        if lag > DELIVERY_SECONDS:
            late.append((key, round(lag, 1)))
    lags.sort()
    report.need(not late, f"{len(late)} grades reached the LMS more than "
                          f"{DELIVERY_SECONDS:g} s after they could: {late[:5]}")
    if lags:
        report.say(f"delivery to the LMS, from when each grade could be sent: median "
                   f"{lags[len(lags) // 2]:.1f} s, max {lags[-1]:.1f} s ({len(lags)} grades; "
                   f"the LMS was down {events.up - events.down:.0f} s, the server "
                   f"{events.restarted - events.killed:.1f} s)")
    report.figures["delivery_max"] = lags[-1] if lags else None

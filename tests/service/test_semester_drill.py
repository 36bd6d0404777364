"""A short semester on one server (the drill of semester_drill.py, checked by
semester_report.py; tests/benchmarks/bench_semester.py runs it with 500 students).

Twelve students in a Canvas-shaped LMS over HTTPS, two assignments: launches, hand-ins
through the page's form naming their assignment, a deadline rush with the server killed
(SIGKILL) and started again, late hand-ins under a penalty and extensions, the LMS's scores
down for a few seconds, the instructor's configuration change and regrade of the Monte
Carlo, and adjustments. Then: every hand-in received and graded once, none lost or doubled,
every final grade in the gradebook explained by its records and equal to the score the LMS
holds, each delivered within 60 s of when it could be.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from semester_drill import Drill, Term  # noqa: E402
from semester_report import check, settle  # noqa: E402

SHORT = Term(students=12, window=10.0, rush=0.5, late=4.0, outage=3.0, outage_at=0.5,
             kill_at=0.7, extensions=0.1, late_share=0.2, resubmit=0.1, adjustments=2)


@pytest.mark.long
@pytest.mark.grades(40, jobs=2)
def test_a_short_semester_loses_nothing_doubles_nothing_and_explains_every_grade(
        tmp_path: Path, load_factor: float) -> None:
    # A busy machine grades slower: the term's clock (its deadlines) slows down with it.
    term = SHORT.slower(min(load_factor, 4.0))
    with Drill(tmp_path / "drill", term, say=lambda line: None) as drill:
        drill.run()
        assert settle(drill, 300 * load_factor), "the queue or the outbox never emptied"
        report = check(drill)
    assert report.problems == [], report.text()
    hand_ins = sum(len(student.hand_ins) for student in drill.students)
    # Every hand-in received, but one the drill's own client sent after its assignment
    # closed (waiting on the student's earlier hand-in: one at a time), which is refused.
    assert report.figures["received"] + report.figures["sent_late"] == hand_ins
    assert report.figures["received"] > 2 * term.students and report.figures["sent_late"] <= 2
    assert report.figures["explained"] == 2 * term.students
    assert report.figures["regraded"] >= term.students          # the Monte Carlo's class
    assert drill.events.killed and drill.events.restarted > drill.events.killed
    assert any(one.late for student in drill.students for one in student.hand_ins)
    assert any(student.extension for student in drill.students)
    assert report.figures["delivery_max"] is not None

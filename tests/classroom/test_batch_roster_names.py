"""``batch --roster`` names each student as the roster does: a Canvas download names its files
with a mangled name ("nunezorstedzoe"), and the report said "Student: nunezorstedzoe
(10003)" even with a roster giving "Ñúñez-Ørsted, Zoë". The reports and the gradebook use
the roster's names where it gives them (and the export's name where it gives none).
"""

from __future__ import annotations

from pathlib import Path

from test_batch import CONSTANT, FakeRunner, copy, read_gradebook, results_json

from grader.classroom import Attempt, BatchOptions, find_submissions, run_batch
from grader.classroom.roster import parse_roster
from grader.suite.report import student_label

ROSTER = ('Student,ID,SIS User ID,SIS Login ID,Section\n'
          '"Ñúñez-Ørsted, Zoë",10003,S003,zoe,Section 1\n'
          ',10004,S004,noname,Section 1\n').encode()


def test_a_canvas_download_is_named_as_the_roster_names_its_students(tmp_path: Path):
    root = tmp_path / "canvas"
    copy(CONSTANT, root / "nunezorstedzoe_10003_111_mm_player.py")
    copy(CONSTANT, root / "doeno_10004_112_mm_player.py")
    found, _ = find_submissions(root, tmp_path / "work")
    assert {s.student_id: s.name for s in found} == {"10003": "nunezorstedzoe",
                                                     "10004": "doeno"}
    runner = FakeRunner(lambda job: Attempt(job.submission.student_id, 0, results_json(5.0)))
    out = tmp_path / "out"
    run_batch(found, BatchOptions(out=out, roster=parse_roster(ROSTER)), runner)
    names = {job.submission.student_id: job.student_name for job in runner.jobs}
    assert names == {"10003": "Ñúñez-Ørsted, Zoë", "10004": "doeno"}
    assert student_label("10003", names["10003"]) == "Ñúñez-Ørsted, Zoë (10003)"
    _, rows = read_gradebook(out)
    assert rows["10003"]["name"] == "Ñúñez-Ørsted, Zoë" and rows["10004"]["name"] == "doeno"

"""The roster's identifiers besides id, name and email (issue 35): a Canvas gradebook export
given as the roster (``Student, ID, SIS User ID, SIS Login ID, Section``) or a plain roster
with ``sis_login_id`` and ``section`` columns is kept on the page (schema 8), and the page's
Canvas gradebook gives them back.

Canvas's importer (canvas-lms, app/models/gradebook_importer.rb, as the batch writer's tests
hold it: tests/classroom/test_lms.py CANVAS_COLUMNS) finds a student by "ID" (its numeric user
id), else "SIS User ID", else "SIS Login ID", and takes a row whose other identifiers are
blank (spec/models/gradebook_importer_spec.rb: ``["", "", sis_user_id, "", "", 99]``), so a
cell the roster never gave stays blank.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from service_helpers import database_at_version  # noqa: E402
from test_course_records import Course, _csrf  # noqa: E402
from test_page_gradebooks import CANVAS_COLUMNS  # noqa: E402

from grader.service.command import import_roster  # noqa: E402
from grader.service.course import auth, schema  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402

# A Canvas gradebook export as Canvas writes it: "Last, First", the points line, no email.
CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section,Minimax (777)\n"
                 "    Points Possible,,,,,100\n"
                 '"Lovelace, Ada",12345,S001,ada,Section 1,\n'
                 '"Hopper, Grace",67890,,grace,Section 2,\n')


@pytest.fixture
def course(tmp_path: Path):
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def upload(course: Course, text: str) -> str:
    """The page's Roster upload of ``text``; the page it answers with."""
    teacher = course.browser("instructor")
    answer = teacher.post("/instructor/roster",
                          data={"csrf": _csrf(teacher, "/instructor/roster")},
                          files={"roster": ("roster.csv", text.encode())})
    assert answer.status_code == 200, answer.text
    return answer.text


def canvas_lines(course: Course) -> dict[str, dict[str, str]]:
    """The page's Canvas gradebook, its lines by Student."""
    answer = course.api().get("/api/gradebook.csv",
                              params={"format": "canvas", "assignment": "Minimax (777)"})
    assert answer.status_code == 200, answer.text
    reader = csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig")))
    lines = list(reader)
    assert reader.fieldnames == CANVAS_COLUMNS + ["Minimax (777)"]
    return {line["Student"]: line for line in lines}


def test_a_canvas_export_as_the_roster_comes_back_in_the_pages_canvas_gradebook(course):
    page = upload(course, CANVAS_ROSTER)
    assert "2 added" in page and "SIS Login ID" in page and "Section" in page
    course.graded("12345", 80.0)
    course.graded("67890", 60.0)
    course.graded("alice", 70.0)        # from a plain roster: no Canvas id, login or section
    lines = canvas_lines(course)
    assert lines["Lovelace, Ada"] == {"Student": "Lovelace, Ada", "ID": "12345",
                                      "SIS User ID": "S001", "SIS Login ID": "ada",
                                      "Section": "Section 1", "Minimax (777)": "80"}
    # No SIS User ID in Canvas: blank, never Canvas's own id in its place.
    assert (lines["Hopper, Grace"]["ID"], lines["Hopper, Grace"]["SIS User ID"],
            lines["Hopper, Grace"]["SIS Login ID"], lines["Hopper, Grace"]["Section"]) == \
        ("67890", "", "grace", "Section 2")
    assert (lines["Alice Liddell"]["ID"], lines["Alice Liddell"]["SIS User ID"],
            lines["Alice Liddell"]["SIS Login ID"], lines["Alice Liddell"]["Section"]) == \
        ("", "alice", "", "")


def test_serve_rosters_sis_login_id_and_section_columns_reach_the_canvas_gradebook(
        course, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,sis_login_id,section\n"
                      "alice,Alice Liddell,alice@example.org,aliddell,Tutorial B\n")
    assert import_roster(course.store, roster) == (0, 1)
    course.graded("alice", 70.0)
    alice = canvas_lines(course)["Alice Liddell"]
    assert (alice["ID"], alice["SIS User ID"], alice["SIS Login ID"], alice["Section"]) == \
        ("", "alice", "aliddell", "Tutorial B")
    # Moodle's identifiers are as they were: the email and the roster's id.
    moodle = course.api().get("/api/gradebook.csv?format=moodle").content.decode("utf-8-sig")
    line = next(csv.DictReader(io.StringIO(moodle)))
    assert (line["Email address"], line["ID number"]) == ("alice@example.org", "alice")


def test_a_roster_without_those_columns_keeps_them_and_one_with_them_updates_them(course):
    upload(course, CANVAS_ROSTER)
    page = upload(course, "id,name,email\n12345,Ada Lovelace,ada@example.org\n")
    assert "1 updated" in page
    ada = course.store.student("12345")
    assert (ada.name, ada.email) == ("Ada Lovelace", "ada@example.org")
    assert (ada.lms_user_id, ada.sis_user_id, ada.sis_login_id, ada.section) == \
        ("12345", "S001", "ada", "Section 1")
    # The same roster again changes nothing; one with a new section updates it.
    assert "1 unchanged" in upload(course, "id,name,email\n12345,Ada Lovelace,ada@example.org\n")
    page = upload(course, "id,name,email,section\n12345,Ada Lovelace,ada@example.org,Lab 3\n")
    assert "1 updated" in page
    ada = course.store.student("12345")
    assert (ada.section, ada.sis_login_id, ada.lms_user_id) == ("Lab 3", "ada", "12345")


def test_a_course_of_the_previous_version_keeps_every_student_and_link(tmp_path):
    path = tmp_path / "course.sqlite3"
    secret = b"k" * 32
    previous = schema.VERSION - 1
    database = database_at_version(path, previous)
    tokens = {}
    with database.transaction() as db:
        for student, name in (("ada42", "Ada"), ("bo", "Bo")):
            nonce = auth.new_nonce()
            tokens[student] = auth.derive_token(secret, nonce)
            db.execute("INSERT INTO students (id, name, email, token_nonce, token_hash, "
                       "revoked, added_at) VALUES (?, ?, ?, ?, ?, ?, 't')",
                       (student, name, f"{student}@x.org", nonce,
                        auth.hash_token(tokens[student]), int(student == "bo")))
        db.execute("INSERT INTO lti_platforms (issuer, client_id, auth_login_url, "
                   "auth_token_url, key_set_url, added_at, added_by) VALUES ('https://lms', "
                   "'c', 'https://lms/a', 'https://lms/t', 'https://lms/k', 't', 'test')")
        db.execute("INSERT INTO lti_users (platform, sub, student, linked_at, how) VALUES "
                   "(1, 'u-1', 'ada42', 't', 'launch: email')")
    database.close()
    store = Store(path, secret)
    try:
        assert store.get_setting("schema") == str(schema.VERSION)
        assert [(student.id, student.name, student.email, student.revoked)
                for student in store.students()] == [("ada42", "Ada", "ada42@x.org", False),
                                                     ("bo", "Bo", "bo@x.org", True)]
        ada = store.student("ada42")
        assert (ada.lms_user_id, ada.sis_user_id, ada.sis_login_id, ada.section) == \
            ("", "", "", "")
        assert store.student_token("ada42") == tokens["ada42"]
        assert store.identify(tokens["ada42"]).student == "ada42"
        link = store.database.one("SELECT student, how FROM lti_users WHERE sub = 'u-1'")
        assert (link["student"], link["how"]) == ("ada42", "launch: email")
    finally:
        store.close()

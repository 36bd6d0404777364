"""grader.classroom.lms: the gradebooks Canvas's and Moodle's grade imports read, written
and read back with the csv module; students an importer could not identify are reported,
never written. One test grades a Canvas download for real (two fast files)."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from grader.classroom import lms
from grader.classroom.gradebook import Row, not_graded_row
from grader.classroom.people import Person

HERE = Path(__file__).resolve().parents[1]   # tests/
CONSTANT = HERE / "submissions" / "batch" / "constant.py"   # wrong but fast

# What each importer requires (its documentation): Canvas's gradebook import: Student, ID,
# SIS User ID, SIS Login ID, Section, then one column per assignment; Moodle's CSV import:
# a column it maps to a user field (email address, idnumber, ...) and a grade column.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDENTIFIERS = {"Email address", "ID number"}

ADA = Person("Lovelace, Ada", "S001", "ada@x.org", "12345", "ada", "Section 1")
GRACE = Person("Hopper, Grace", "S002", "grace@x.org", "67890", "grace", "Section 1")
NOBODY = Person("Someone")                 # a name, but no id or email any importer takes


def read_back(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        return list(reader.fieldnames or []), list(reader)


def graded(sid: str, score: float, *people: Person, at: str = "") -> Row:
    return Row(sid, "graded", score, 100.0, people=people, submitted_at=at)


def test_canvas_gradebook_has_canvas_columns_and_its_assignment(tmp_path):
    rows = [graded("12345", 80.0, ADA), graded("x", 70.0, NOBODY),
            not_graded_row("67890", "empty folder", people=(GRACE,))]
    book = lms.lms_gradebook(lms.CANVAS, rows, "Minimax (4242)")
    path = lms.write_lms_gradebook(tmp_path, book)
    header, lines = read_back(path)
    assert path.name == "gradebook-canvas.csv"
    assert header == CANVAS_COLUMNS + ["Minimax (4242)"]
    assert lines == [{"Student": "Lovelace, Ada", "ID": "12345", "SIS User ID": "S001",
                      "SIS Login ID": "ada", "Section": "Section 1", "Minimax (4242)": "80"}]
    assert book.unidentified == ("x",)        # graded, but Canvas could not tell whose
    assert book.not_graded == 1               # no line: Canvas keeps what it has


def test_moodle_gradebook_is_keyed_by_email_or_id_number(tmp_path):
    only_sid = Person("Alan Turing", sid="1003")
    rows = [graded("g1", 55.5, ADA, GRACE), graded("t", 90.0, only_sid),
            graded("n", 10.0, NOBODY)]
    book = lms.lms_gradebook(lms.MOODLE, rows)
    header, lines = read_back(lms.write_lms_gradebook(tmp_path, book))
    assert header[-1] == lms.DEFAULT_ASSIGNMENT and MOODLE_IDENTIFIERS <= set(header)
    assert all(line["Email address"] or line["ID number"] for line in lines)
    assert [(line["Email address"], line["ID number"], line["Minimax"]) for line in lines] == [
        ("ada@x.org", "S001", "55.5"), ("grace@x.org", "S002", "55.5"), ("", "1003", "90")]
    assert book.unidentified == ("n",)


def test_a_student_in_several_submissions_gets_one_line_latest_or_best():
    rows = [graded("1", 90.0, ADA, at="2026-03-01T10:00:00+00:00"),
            graded("2", 60.0, ADA, at="2026-03-02T10:00:00+00:00"),
            graded("3", 90.0, ADA, at="2026-02-01T10:00:00+00:00")]
    latest = lms.lms_gradebook(lms.MOODLE, rows, choice="latest")
    best = lms.lms_gradebook(lms.MOODLE, rows, choice="best")
    assert [line["Minimax"] for line in latest.lines] == ["60"]
    assert [line["Minimax"] for line in best.lines] == ["90"]
    with pytest.raises(lms.LmsFormatError, match="latest, best"):
        lms.lms_gradebook(lms.MOODLE, rows, choice="first")


def test_cells_that_look_like_formulas_stay_text_and_names_are_checked():
    rows = [graded("1", 50.0, Person("=HYPERLINK(1)", email="a@x.org"))]
    text = lms.lms_gradebook(lms.MOODLE, rows).csv()
    assert "'=HYPERLINK(1)" in text and text.startswith("\ufeff")
    assert list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))[1][-1] == "50"
    for bad in ("", "=1+2", "two\nlines"):
        with pytest.raises(lms.LmsFormatError, match="one line of text"):
            lms.lms_gradebook(lms.CANVAS, rows, bad)
    with pytest.raises(lms.LmsFormatError, match="column of canvas"):
        lms.lms_gradebook(lms.CANVAS, rows, "Section")
    with pytest.raises(lms.LmsFormatError, match="canvas or moodle"):
        lms.lms_format("blackboard")


@pytest.mark.grades(2, jobs=2)
def test_batch_on_a_canvas_download_writes_canvas_ids_from_its_file_names(tmp_path):
    source = tmp_path / "canvas"
    source.mkdir()
    for name in ("lovelaceada_12345_555_mm_player.py", "hopper_LATE_67890_556_mm_player.py"):
        (source / name).write_bytes(CONSTANT.read_bytes())
    roster = tmp_path / "canvas-export.csv"     # Canvas's gradebook export
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Minimax (4242)\n"
                      "    Points Possible,,,,,100\n"
                      '"Lovelace, Ada",12345,S001,ada,Section 1,\n'
                      '"Babbage, Charles",11111,S003,charles,Section 2,\n')
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(source), "--out",
                           str(out), "--jobs", "2", "--quiet", "--roster", str(roster),
                           "--gradebook-format", "canvas", "--assignment-name",
                           "Minimax (4242)"],
                          capture_output=True, text=True, timeout=600, cwd=HERE.parent)
    assert done.returncode == 0, done.stderr
    header, lines = read_back(out / "gradebook-canvas.csv")
    assert header == CANVAS_COLUMNS + ["Minimax (4242)"]
    by_id = {line["ID"]: line for line in lines}
    assert set(by_id) == {"12345", "67890"}      # Charles handed in nothing: no line
    assert (by_id["12345"]["SIS User ID"], by_id["12345"]["Section"]) == ("S001", "Section 1")
    assert by_id["67890"]["Student"] == "hopper" and by_id["67890"]["SIS User ID"] == ""
    assert "1 on the roster handed in nothing (no score): 11111" in done.stderr
    assert "not on the roster" in done.stderr and "67890" in done.stderr

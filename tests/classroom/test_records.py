"""Who each submission belongs to: a Gradescope export's metadata, a roster checked against
the submissions (grader.classroom.people, grader.classroom.records), and the summary's
sentences about them. One test grades for real (a Gradescope export of three fast files)."""

from __future__ import annotations

import csv
import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from grader.classroom import gradebook, summary
from grader.classroom.discover import Submission, find_submissions
from grader.classroom.people import (MetadataError, Person, parse_gradescope_metadata,
                                     read_gradescope_metadata)
from grader.classroom.records import (BY_NAME, NOT_ON_ROSTER, ON_ROSTER, match_roster,
                                      missing_row)
from grader.classroom.roster import Roster, RosterEntry, is_test_student, parse_roster
from grader.classroom.state import INTERRUPTED, WAITING, OutputFolder, row_for

HERE = Path(__file__).resolve().parents[1]   # tests/
METADATA = HERE / "submissions" / "gradescope" / "submission_metadata.yml"
CONSTANT = HERE / "submissions" / "batch" / "constant.py"   # wrong but fast
NUMBERS = ("210001", "210002", "210003")                     # the metadata's submissions


def gradescope_export(root: Path, metadata: str | None = None) -> Path:
    """A Gradescope export as its zip unpacks: submission_NNN/ folders and the metadata."""
    for number in NUMBERS:
        folder = root / f"submission_{number}"
        folder.mkdir(parents=True)
        (folder / "mm_player.py").write_bytes(CONSTANT.read_bytes())
    (root / "submission_metadata.yml").write_text(
        METADATA.read_text() if metadata is None else metadata)
    return root


# ------------------------------------------------------------- Gradescope's metadata


def test_the_metadata_of_an_export_names_every_submitter_and_when():
    metadata = read_gradescope_metadata(METADATA)
    assert set(metadata.submissions) == set(NUMBERS) and not metadata.warnings
    solo, group, early = (metadata.submissions[number] for number in NUMBERS)
    assert solo.people == (Person("Ada Lovelace", "1001", "ada@example.edu"),)
    assert [person.sid for person in group.people] == ["1002", "1003"]
    assert solo.submitted_at == dt.datetime(2026, 3, 2, 21, 14, 7, 512873,
                                            tzinfo=dt.timezone(-dt.timedelta(hours=8)))
    assert (solo.late, group.late, early.late) == (False, True, False)   # due 03-02 23:59


def test_plain_keys_ruby_tags_and_a_top_level_due_date_are_read_too():
    metadata = parse_gradescope_metadata(
        "due_date: 2026-03-01T12:00:00Z\n"
        "submission_5:\n"
        "  submitters:\n"
        "  - !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n"
        "    name: Bo\n"
        "    sid: 77\n"
        "  created_at: !ruby/object:ActiveSupport::TimeWithZone\n"
        "    utc: 2026-03-01 12:00:01.000000000 Z\n"
        "submission_6:\n"
        "  submitters: []\n")
    late = metadata.submissions["5"]
    assert late.people == (Person("Bo", "77"),) and late.late
    assert metadata.submissions["6"].people == ()
    assert metadata.warnings == ("submission_metadata.yml: submission_6 names no submitter",)


@pytest.mark.parametrize("text, says", [
    ("submission_1: [unclosed", "is not valid YAML (line"),
    ("- a list\n- of things\n", "is not a mapping of submission_NNN entries"),
    ("assignment: {title: Minimax}\n", "has no submission_NNN entry"),
])
def test_metadata_that_cannot_be_read_says_why(text, says):
    with pytest.raises(MetadataError, match=says.replace("(", r"\(")):
        parse_gradescope_metadata(text)


def test_an_export_with_its_metadata_gives_names_sids_emails_and_lateness(tmp_path):
    found, warnings = find_submissions(gradescope_export(tmp_path / "export"), tmp_path / "w")
    assert warnings == []
    by_id = {submission.student_id: submission for submission in found}
    assert set(by_id) == set(NUMBERS)
    group = by_id["210002"]
    assert group.name == "Grace Hopper; Alan Turing" and group.late and group.lms == "gradescope"
    assert [person.email for person in group.people] == ["grace@example.edu",
                                                         "alan@example.edu"]
    assert by_id["210001"].submitted_at == "2026-03-02T21:14:07-08:00"
    assert not by_id["210001"].late


def test_a_malformed_metadata_file_warns_and_loses_no_submission(tmp_path):
    export = gradescope_export(tmp_path / "export", "submission_210001:\n  :submitters: [\n")
    found, warnings = find_submissions(export, tmp_path / "w")
    assert [submission.student_id for submission in found] == list(NUMBERS)
    assert all(submission.problem is None and submission.people == () for submission in found)
    assert len(warnings) == 1
    assert "submission_metadata.yml is not valid YAML" in warnings[0]
    assert "keep their submission ids" in warnings[0]


def test_a_folder_the_metadata_does_not_name_is_kept_with_a_warning(tmp_path):
    export = gradescope_export(tmp_path / "export")
    (export / "submission_999").mkdir()
    (export / "submission_999" / "mm_player.py").write_bytes(CONSTANT.read_bytes())
    found, warnings = find_submissions(export, tmp_path / "w")
    assert "999" in {submission.student_id for submission in found}
    assert warnings == ["submission_metadata.yml does not name the submitters of "
                        "submission_999"]


# ------------------------------------------------------------- the roster


def roster_of(text: str) -> Roster:
    return parse_roster(text.encode())


def test_submissions_match_the_roster_by_id_email_or_sid_whatever_the_case():
    roster = roster_of("id,name,email\nalice,Alice Adams,alice@x.org\n"
                       "1002,Grace Hopper,GRACE@x.org\n1004,Barbara Liskov,\n")
    submissions = [Submission("Alice", Path("Alice.py")),
                   Submission("210002", None, lms="gradescope",
                              people=(Person("Grace H.", email="grace@X.org"),
                                      Person("Alan Turing", "1003")))]
    matched = match_roster(submissions, roster)
    alice, group = matched.submissions
    assert alice.roster == ON_ROSTER
    assert alice.people == (Person("Alice Adams", "alice", "alice@x.org"),)   # filled in
    assert group.people[0] == Person("Grace Hopper", "1002", "grace@X.org")  # the roster's name
    assert group.roster == f"{NOT_ON_ROSTER}: Alan Turing"
    assert [submission.student_id for submission in matched.unmatched] == ["210002"]
    assert [entry.student_id for entry in matched.missing] == ["1004"]


def test_gradescope_and_moodle_numbers_never_match_a_roster_id():
    """A Gradescope submission id or a Moodle participant id that happens to be a roster id
    is no evidence: only the people's SIDs, emails and names are."""
    roster = roster_of("id,name\n210001,Someone Else\n4321,Another One\n")
    submissions = [Submission("210001", None, lms="gradescope", people=(Person("Ada"),)),
                   Submission("4321", None, lms="moodle", people=(Person("Ada Lovelace"),))]
    matched = match_roster(submissions, roster)
    assert [s.roster for s in matched.submissions] == [NOT_ON_ROSTER, NOT_ON_ROSTER]
    assert len(matched.missing) == 2


def test_a_canvas_roster_gives_canvas_ids_and_a_moodle_name_matches_only_if_unique():
    canvas = roster_of("Student,ID,SIS User ID,SIS Login ID,Section\n"
                       '"Lovelace, Ada",12345,S001,ada,Section 1\n'
                       '"Hopper, Grace",67890,S002,grace,Section 2\n')
    found = match_roster([Submission("12345", None, lms="canvas",
                                     people=(Person("lovelaceada", canvas_id="12345"),)),
                          Submission("777", None, lms="moodle",
                                     people=(Person("Grace Hopper"),))], canvas)
    ada, grace = found.submissions
    assert ada.people == (Person("Lovelace, Ada", "S001", "", "12345", "ada", "Section 1"),)
    assert ada.roster == ON_ROSTER
    assert grace.roster == BY_NAME and grace.people[0].canvas_id == "67890"
    twins = roster_of("id,name\na1,Grace Hopper\na2,Grace Hopper\n")
    assert match_roster([Submission("777", None, lms="moodle",
                                    people=(Person("Grace Hopper"),))],
                        twins).submissions[0].roster == NOT_ON_ROSTER


def test_a_student_in_two_submissions_is_noted():
    roster = roster_of("id,email\n1002,grace@x.org\n")
    both = [Submission(number, None, lms="gradescope", people=(Person(email="grace@x.org"),))
            for number in ("1", "2")]
    matched = match_roster(both, roster)
    assert matched.missing == () and "1002 is in 2 submissions (1, 2)" in matched.warnings[0]


def test_canvas_test_student_is_never_a_missing_hand_in():
    # Canvas's export: the fake student has a Canvas id, or none, and never an SIS id.
    canvas = roster_of("Student,ID,SIS User ID,SIS Login ID,Section\n"
                       '"Lovelace, Ada",12345,S001,ada,Section 1\n'
                       '"Student, Test",99999,,,Section 1\n'
                       "Test Student,,,,Section 1\n")
    assert [entry.student_id for entry in canvas.entries] == ["12345", "99999"]
    matched = match_roster([], canvas)
    assert [entry.student_id for entry in matched.missing] == ["12345"]
    # Its own hand-in (the Student View) is graded like any other, and matched.
    tried = match_roster([Submission("99999", None, lms="canvas",
                                     people=(Person("studenttest", canvas_id="99999"),))],
                         canvas)
    assert tried.submissions[0].roster == ON_ROSTER
    # A real student of that name has an SIS id; a plain roster's is a name like any other.
    real = roster_of("Student,ID,SIS User ID\nTest Student,5,S005\n")
    assert [entry.student_id for entry in match_roster([], real).missing] == ["5"]
    assert is_test_student("test  student") and not is_test_student("Tess Student")

def test_missing_students_are_rows_apart_with_a_zero_only_when_asked():
    entry = RosterEntry("1004", "Barbara Liskov", "barbara@x.org")
    plain, zero = missing_row(entry), missing_row(entry, zero=True, max_score=100.0)
    assert (plain.status, plain.score, zero.score, zero.max_score) == (
        "not graded: no submission", None, 0.0, 100.0)
    rows = [gradebook.Row("a", "graded", 80.0, 100.0), zero,
            gradebook.Row("b", "graded", 60.0, 100.0, roster=NOT_ON_ROSTER)]
    stats = summary.ClassStats.of(rows)
    assert (stats.total, stats.graded, stats.missing, stats.not_on_roster) == (2, 2, 1, 1)
    assert stats.scores == (80.0, 60.0) and stats.not_graded == {}
    page = summary.summary_html(rows)
    assert ("student on the roster handed in nothing (0 in the gradebook)."
            in page[:page.index("<h2")])
    assert "barbara@x.org" in page[page.index('id="roster"'):]
    book = list(csv.DictReader(gradebook.gradebook_csv(rows).lstrip("\ufeff").splitlines()))
    assert [(row["student_id"], row["score"], row["email"], row["roster"]) for row in book] == [
        ("a", "80", "", ""), ("1004", "0", "barbara@x.org", ON_ROSTER),
        ("b", "60", "", NOT_ON_ROSTER)]


# ------------------------------------------------------------- the summary's sentences


def test_each_tile_reads_as_a_sentence_on_its_own():
    """The issue's case: "13 graded" beside "3 not run" out of 13 read as 16 of 13."""
    rows = ([gradebook.Row(f"s{n}", "graded", 100.0, 100.0) for n in range(10)]
            + [gradebook.Row(f"x{n}", "not run: syntax", 0.0, 100.0) for n in range(2)]
            + [gradebook.Row("y", "not run: exit", 0.0, 100.0)])
    tiles = [" ".join(tile) for tile in summary.tiles(summary.ClassStats.of(rows))]
    assert tiles[0] == "13 of 13 submissions graded."
    assert tiles[1] == ("3 of the 13 graded could not be run (2 with a syntax error, 1 with "
                        "an exit on import): they score 0, and their reports say why.")
    assert "full marks" in tiles[-1] and "10 of the 13 graded have" in tiles[-1]


def test_a_row_without_a_result_says_whether_it_waits_or_was_interrupted(tmp_path):
    folder = OutputFolder(tmp_path / "out")
    folder.prepare()
    submission = Submission("alice", tmp_path / "alice.py", people=(Person("Alice", "7"),),
                            submitted_at="2026-03-01T10:00:00+00:00", roster=ON_ROSTER)
    waiting = row_for(submission, folder)
    stopped = row_for(submission, folder, pending=INTERRUPTED)
    assert waiting.status == f"not graded: {WAITING}"
    assert stopped.status == ("not graded: the batch was stopped before grading it; run the "
                              "same command again to grade it")
    assert stopped.people == submission.people and stopped.roster == ON_ROSTER
    assert stopped.submitted_at == "2026-03-01T10:00:00+00:00"
    tile = summary.tiles(summary.ClassStats.of([stopped, stopped]))[1]
    assert tile == ("2", "submissions not graded: the batch was stopped before grading them; "
                         "run the same command again to grade them.")
    assert "not graded yet" not in summary.summary_html([waiting, stopped])


# ------------------------------------------------------------- end to end


@pytest.mark.grades(3, jobs=2)
def test_batch_on_a_gradescope_export_with_a_roster_and_lms_gradebooks(tmp_path):
    export = gradescope_export(tmp_path / "export")
    roster = tmp_path / "roster.csv"
    roster.write_text("First Name,Last Name,SID,Email,Role,Sections\n"
                      "Ada,Lovelace,1001,ada@example.edu,Student,\n"
                      "Grace,Hopper,1002,grace@example.edu,Student,\n"
                      "Alan,Turing,1003,alan@example.edu,Student,\n"
                      "Barbara,Liskov,1004,barbara@example.edu,Student,\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(export), "--out",
                           str(out), "--jobs", "2", "--quiet", "--roster", str(roster),
                           "--missing-zero", "--gradebook-format", "moodle",
                           "--gradebook-format", "canvas"],
                          capture_output=True, text=True, timeout=600, cwd=HERE.parent)
    assert done.returncode == 0, done.stderr
    with open(out / "gradebook.csv", newline="", encoding="utf-8-sig") as file:
        book = {row["student_id"]: row for row in csv.DictReader(file)}
    assert book["210002"]["name"] == "Grace Hopper; Alan Turing"
    assert book["210002"]["sid"] == "1002; 1003" and book["210002"]["late"] == "late"
    assert book["210002"]["submitted_at"] == "2026-03-03T09:02:44-08:00"
    assert book["210003"]["roster"] == NOT_ON_ROSTER and book["210003"]["status"] == "graded"
    assert book["1004"]["status"] == "not graded: no submission"
    assert book["1004"]["score"] == "0" and book["1004"]["name"] == "Barbara Liskov"
    score = book["210001"]["score"]
    with open(out / "gradebook-moodle.csv", newline="", encoding="utf-8-sig") as file:
        moodle = list(csv.DictReader(file))
    assert [(row["Email address"], row["Minimax"]) for row in moodle] == [
        ("ada@example.edu", score), ("grace@example.edu", score), ("alan@example.edu", score),
        ("edsger@example.edu", score), ("barbara@example.edu", "0")]
    assert "1 on the roster handed in nothing (0): 1004" in done.stderr
    assert "1 submission from someone not on the roster" in done.stderr
    assert "gradebook for Moodle:" in done.stderr and "'Email address'" in done.stderr
    page = (out / "summary.html").read_text()
    assert "3 of 3</b>submissions graded." in page and 'id="roster"' in page

"""grader.classroom.roster (read by ``batch --roster`` and by the service): the roster CSVs
an instructor has (plain, Canvas, Moodle, Gradescope), their encodings, and the mistakes
that refuse them with a message."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from grader.classroom.roster import (RosterEntry, RosterError, load_roster, parse_roster,
                                     read_roster)


def write(tmp_path: Path, data: bytes | str, name: str = "roster.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def test_the_plain_form(tmp_path):
    path = write(tmp_path, "id,name,email\nalice,Alice Adams,alice@example.org\n"
                           "bob,Bob Brown,bob@example.org\n")
    assert read_roster(path) == [RosterEntry("alice", "Alice Adams", "alice@example.org"),
                                 RosterEntry("bob", "Bob Brown", "bob@example.org")]


@pytest.mark.parametrize("header", ["student_id,Name,E-mail", "Student ID,NAME,Email Address",
                                    "SID,Full Name,email", "ID number,Student,Mail"])
def test_headers_are_matched_whatever_their_case_and_spelling(tmp_path, header):
    path = write(tmp_path, f"{header}\n42,Ada Lovelace,ada@example.org\n")
    assert read_roster(path) == [RosterEntry("42", "Ada Lovelace", "ada@example.org")]


def test_canvas_gradebook_export(tmp_path):
    """Canvas: Student is "Last, First"; ID is the id of Canvas's download file names (what
    batch reads) and wins over SIS User ID, which is kept with SIS Login ID and Section (its
    grade import wants them back); the "Points Possible" line is no student; there is no
    email."""
    path = write(tmp_path,
                 "Student,ID,SIS User ID,SIS Login ID,Section,Minimax (123)\n"
                 "    Points Possible,,,,,100\n"
                 '"Lovelace, Ada",12345,S001,ada,Section 1,\n'
                 '"Hopper, Grace",67890,S002,grace,Section 1,\n')
    roster = load_roster(path)
    assert roster.entries == (RosterEntry("12345", "Lovelace, Ada", "", "S001", "ada",
                                          "Section 1"),
                              RosterEntry("67890", "Hopper, Grace", "", "S002", "grace",
                                          "Section 1"))
    assert roster.canvas
    ta_export = parse_roster(b"Student,ID,Section\n\"Lovelace, Ada\",12345,Section 1\n")
    assert ta_export.canvas and ta_export.entries[0].section == "Section 1"
    assert not parse_roster(b"id,name,email\n12345,Ada,ada@x.org\n").canvas
    assert any("no email column" in note for note in roster.notes)


def test_moodle_export_joins_first_and_last_names(tmp_path):
    path = write(tmp_path, "First name,Last name,ID number,Institution,Department,"
                           "Email address\nAda,Lovelace,7001,Uni,CS,ada@example.org\n")
    assert read_roster(path) == [RosterEntry("7001", "Ada Lovelace", "ada@example.org")]


def test_gradescope_roster(tmp_path):
    path = write(tmp_path, "First Name,Last Name,SID,Email,Role,Sections\n"
                           "Grace,Hopper,99,grace@example.org,Student,\n")
    assert read_roster(path) == [RosterEntry("99", "Grace Hopper", "grace@example.org")]


def test_excel_bom_semicolons_and_utf16(tmp_path):
    text = "id;name;email\nj1;José Núñez;jose@example.org\n"
    expected = [RosterEntry("j1", "José Núñez", "jose@example.org")]
    assert read_roster(write(tmp_path, codecs.BOM_UTF8 + text.encode("utf-8"))) == expected
    utf16 = text.replace(";", "\t").encode("utf-16")        # Excel's "Unicode text"
    assert read_roster(write(tmp_path, utf16, "u16.csv")) == expected


def test_windows_1252_is_read_with_a_note(tmp_path):
    path = write(tmp_path, "id,name\nj1,José\n".encode("cp1252"))
    roster = load_roster(path)
    assert roster.entries == (RosterEntry("j1", "José"),)
    assert any("Windows-1252" in note and "line 2" in note for note in roster.notes)


def test_formula_like_names_are_kept_as_written(tmp_path):
    """Escaping is the page's and the CSV writer's job; the roster keeps the name."""
    roster = parse_roster(b'id,name,email\nx1,=1+2,"""><img src=x onerror=alert(1)>"\n')
    assert roster.entries[0].name == "=1+2"
    assert roster.entries[0].email == '"><img src=x onerror=alert(1)>'


def test_quoted_cells_may_hold_commas(tmp_path):
    roster = parse_roster(b'id,name\na,"Lovelace, Ada"\nb,Bob\n')
    assert [entry.name for entry in roster.entries] == ["Lovelace, Ada", "Bob"]


@pytest.mark.parametrize("data, words", [
    # The issue's roster: s1's name swallowed the rest of the file, its email blanked.
    (b'id,name,email\ns1,"Student 1,s1@example.edu\ns2,Student 2,s2@example.edu\n',
     "line 2: a quote opened on this line is never closed"),
    (b'id,name\na,"Lovelace,\nAda"\nb,Bob\n', "line 2: a quoted cell runs over lines 2 to 3"),
    (b"id,name,email\nok,Fine,f@example.org\ns3,Smith, John,s3@example.edu\n",
     "line 3 has 4 cells, the first line names 3"),
    (b"id,name,email\nok,Fine,f@example.org\ns4,Short\n",
     "line 3 has 2 cells, the first line names 3"),
    (b'id,name\nok,Fine\nq,"Ada" Lovelace\n', "line 3: a quote inside a cell"),
])
def test_a_malformed_line_refuses_the_whole_file_naming_it(data, words):
    with pytest.raises(RosterError) as problem:
        parse_roster(data, "r.csv")
    assert str(problem.value).startswith("r.csv: nothing was imported: a malformed line: ")
    assert words in str(problem.value)


def test_empty_cells_after_the_last_column_are_no_mistake():
    roster = parse_roster(b"id,name,email,\nada,Ada,ada@x.org,,\n")
    assert [(entry.student_id, entry.email) for entry in roster.entries] == [
        ("ada", "ada@x.org")]


def test_duplicate_ids_name_the_ids_and_their_lines(tmp_path):
    path = write(tmp_path, "id,name\nalice,A\nbob,B\nALICE,A again\ncarol,C\nbob,B2\n")
    with pytest.raises(RosterError) as problem:
        read_roster(path)
    message = str(problem.value)
    assert "'alice' on lines 2 and 4" in message
    assert "'bob' on lines 3 and 6" in message
    assert str(path) in message


def test_missing_id_column_names_what_was_found(tmp_path):
    with pytest.raises(RosterError, match=r"no column for the student id; the columns "
                                          r"found: 'Name', 'Email'"):
        read_roster(write(tmp_path, "Name,Email\nAda,ada@example.org\n"))


def test_a_file_without_a_header_line_is_refused_plainly(tmp_path):
    with pytest.raises(RosterError, match="must name the columns, e.g. id,name,email"):
        read_roster(write(tmp_path, "alice,Alice,alice@example.org\n"))


@pytest.mark.parametrize("data, words", [
    (b"", "is empty"),
    (b"\xef\xbb\xbf\n\n  \n", "is empty"),
    (b"id,name,email\n", "no student"),
    (b"PK\x03\x04rest of a workbook", "Excel workbook"),
    (b"id,name\x00\x01\x02", "not a text file"),
    (b"id,name\n\x81\x8d\x8f,x\n", "neither UTF-8 nor Windows-1252"),
])
def test_files_that_are_no_roster(tmp_path, data, words):
    with pytest.raises(RosterError, match=words):
        read_roster(write(tmp_path, data))


@pytest.mark.parametrize("line, words", [
    (",Nobody,", "line 3 was left out (the others were read): no student id"),
    ("a b,Spacey,s@example.org", "line 3 was left out (the others were read): the student "
                                 "id 'a b' may hold only"),
    ("instructor,Me,me@example.org", "line 3 was left out (the others were read): the id "
                                     "'instructor' is the instructor's own"),
])
def test_a_bad_line_is_left_out_with_a_note_naming_it(tmp_path, line, words):
    roster = load_roster(write(tmp_path, f"id,name,email\nok,Fine,f@example.org\n{line}\n"))
    assert [entry.student_id for entry in roster.entries] == ["ok"]
    assert any(words in note for note in roster.notes), roster.notes


def test_many_problems_are_counted_not_all_listed():
    data = "id,name\n" + "".join(f",name {number}\n" for number in range(30))
    with pytest.raises(RosterError) as problem:
        parse_roster(data.encode())
    assert "30 problems" in str(problem.value)
    assert "and 20 more" in str(problem.value)


def test_a_folder_or_a_missing_file(tmp_path):
    with pytest.raises(RosterError, match="is a folder"):
        read_roster(tmp_path)
    with pytest.raises(RosterError, match="there is no roster file"):
        read_roster(tmp_path / "nope.csv")

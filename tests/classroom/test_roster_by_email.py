"""A roster line with an email and no id: it used to refuse the whole roster (and ``serve
--roster`` made the course's database and key first). Now the line gets an id made from the
email, the others are unaffected, a line nothing can be made of is left out with a note
naming it, and a roster that is refused leaves nothing behind.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.classroom.roster import RosterError, parse_roster

ROOT = Path(__file__).resolve().parents[2]


def _ids(text: str, **options) -> list[str]:
    return [entry.student_id for entry in parse_roster(text.encode(), **options).entries]


def test_a_line_with_an_email_and_no_id_gets_one_from_the_email():
    roster = parse_roster("id,name,email\n10001,Ada,ada@uni.example\n"
                          ",Zoë Núñez,Zoe.Nunez@uni.example\n".encode())
    assert [(entry.student_id, entry.name, entry.email) for entry in roster.entries] == [
        ("10001", "Ada", "ada@uni.example"), ("zoe.nunez", "Zoë Núñez", "Zoe.Nunez@uni.example")]
    assert any("line 3: zoe.nunez" in note for note in roster.notes)


def test_ids_made_from_emails_are_unique_whatever_the_order():
    text = "id,name,email\n,A,ada@one.example\n,B,ada@two.example\nbob,Bob,\n,C,bob@x.org\n"
    assert _ids(text) == ["ada@one.example", "ada@two.example", "bob", "bob@x.org"]
    reordered = "id,name,email\n,B,ada@two.example\n,A,ada@one.example\n"
    assert sorted(_ids(reordered)) == ["ada@one.example", "ada@two.example"]
    # The instructor's id is never made.
    assert _ids("id,email\n,instructor@x.org\n") == ["instructor@x.org"]


def test_a_known_email_keeps_the_id_the_course_gave_it():
    text = "id,name,email\n,Ada,ADA@uni.example\n,Alan,alan@uni.example\n"
    assert _ids(text, known={"ada@uni.example": "s-17", "x@y.org": "alan"}) == \
        ["s-17", "alan@uni.example"]


def test_an_unusable_line_is_left_out_by_line_and_the_others_are_read():
    roster = parse_roster(b"id,name,email\nok,Fine,f@example.org\n,Nobody,\n"
                          b"a b,Spacey,s@example.org\n", "r.csv")
    assert [entry.student_id for entry in roster.entries] == ["ok"]
    notes = " ".join(roster.notes)
    assert "r.csv: line 3 was left out" in notes and "line 4 was left out" in notes
    assert "'a b' may hold only" in notes
    # A roster of such lines only is refused, naming them.
    with pytest.raises(RosterError, match="line 2: no student id"):
        parse_roster(b"id,name,email\n,Nobody,\n")


def _serve(data: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(data),
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_serve_roster_takes_a_line_by_email_and_a_refused_roster_makes_nothing(
        tmp_path: Path):
    data = tmp_path / "course"
    refused = tmp_path / "refused.csv"
    refused.write_text("id,name\nalice,A\nalice,B\n", encoding="utf-8")
    answer = _serve(data, "--roster", str(refused), "--links")
    assert answer.returncode == 2 and "more than once" in answer.stderr
    assert not data.exists() or not any(data.iterdir())      # no database, no key
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n10001,Ada,ada@uni.example\n"
                      ",Zoë,zoe@uni.example\n,Nobody,\n", encoding="utf-8")
    answer = _serve(data, "--roster", str(roster), "--links")
    assert answer.returncode == 0, answer.stderr
    assert "line 4 was left out" in answer.stderr
    ids = [line.split(",")[0].lstrip("\ufeff") for line in answer.stdout.splitlines()[1:]]
    assert ids[:2] == ["10001", "zoe"]
    # Imported again with the same email: the same student, not a new one.
    roster.write_text("id,name,email\n,Zoë Z,ZOE@uni.example\n", encoding="utf-8")
    answer = _serve(data, "--roster", str(roster), "--links")
    assert answer.returncode == 0 and "0 students added, 1 updated" in answer.stderr

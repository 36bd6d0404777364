"""Names from outside are shown as names, and the course's folder stays private while it
serves (issue 33: right-to-left overrides shown as is in names; a fullwidth ``＝`` not
neutralised in CSV exports; ``work/`` and ``configs/`` made 0755 while serving, then
"fixed" with alarming lines at the next start).
"""

from __future__ import annotations

import csv
import io
import stat
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from grader.service.app import create_app, open_store
from grader.service.course.course_config import save_config
from grader.service.course.folder import private_folder, secure_course_folder
from grader.service.settings import ServiceSettings
from grader.suite.table import safe_cell
from service_helpers import FAST, add_students

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
SPOOF = "Ada \u202eLovelace"                  # shows as "Ada ecalevoL"
FORMULAS = ["\uff1dHYPERLINK(\"http://x\")", "\uff0b1", "\uff0d1", "\uff20SUM(A1)",
            "\ufe66cmd", "\u202e=1+1"]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def teacher(tmp_path: Path):
    store = open_store(tmp_path / "course")
    store.ensure_instructor()
    store.upsert_students([("ada", SPOOF, "ada@example.org"),
                           *[(f"f{number}", name, "") for number, name in enumerate(FORMULAS)]])
    app = create_app(ServiceSettings(data=tmp_path / "course"), store)
    client = TestClient(app, follow_redirects=False)
    assert client.get(f"/s/{store.instructor_token()}").status_code == 303
    yield client
    store.close()


def test_a_name_with_a_right_to_left_override_is_shown_without_it(teacher):
    for path in ("/instructor", "/instructor/students/ada"):
        page = teacher.get(path).text
        assert "Ada Lovelace" in page, path
        assert not any(control in page for control in BIDI), path


def test_the_csv_exports_neutralise_fullwidth_formulas_and_bidi_controls(teacher):
    for path in ("/instructor/links.csv", "/api/gradebook.csv"):
        text = teacher.get(path).content.decode("utf-8-sig")
        assert not any(control in text for control in BIDI), path
        names = {row["student_id"]: row["name"] for row in csv.DictReader(io.StringIO(text))}
        assert names["ada"] == "Ada Lovelace", path
        for number, formula in enumerate(FORMULAS):
            assert names[f"f{number}"].startswith("'"), (path, names[f"f{number}"])


def test_safe_cell_knows_the_fullwidth_and_small_forms():
    assert [safe_cell(value) for value in FORMULAS] == [
        "'\uff1dHYPERLINK(\"http://x\")", "'\uff0b1", "'\uff0d1", "'\uff20SUM(A1)",
        "'\ufe66cmd", "'=1+1"]
    assert safe_cell("Zoë") == "Zoë" and safe_cell(5) == 5


def test_what_the_server_makes_is_private_from_the_start(tmp_path):
    data = tmp_path / "course"
    secure_course_folder(data)
    saved = save_config(data, "[rubric]\n", "default.cfg")
    assert _mode(saved.parent) == 0o700 and _mode(saved) == 0o600
    work = private_folder(data / "work" / "12")
    assert _mode(work) == _mode(work.parent) == 0o700
    assert secure_course_folder(data) == []


def test_serving_and_grading_leave_nothing_for_the_next_start_to_fix(serve, tmp_path):
    data = tmp_path / "course"
    add_students(data, [("ada", "Ada", "")])
    server = serve(data, "--jobs", "1")
    client = server.client("ada")
    answer = client.post("/api/submissions", files={"file": ("mm_player.py", FAST.read_bytes())})
    assert answer.status_code == 201, answer.text
    assert server.wait_done(client, answer.json()["id"])["status"] == "done"
    server.stop()
    made = [path for path in (data / "work", data / "configs") if path.exists()]
    assert made, "the server made neither work/ nor configs/"
    assert [(path.name, oct(_mode(path))) for path in made] == \
        [(path.name, "0o700") for path in made]
    assert secure_course_folder(data) == []

"""The anonymous OIDC login cannot grow the database, and what the LMS says cannot forge a log
line (issue 33: 200 POST /lti/login with three 60 KB fields grew the database from 0.2 to
36 MB in 3.5 s; an ``error_description`` with CR LF wrote a line of its own).

The course's application (create_app) in process, through Starlette's TestClient, with one
platform registered from a file as ``--lti-platform`` does.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Iterator

import pytest
from starlette.testclient import TestClient

from grader.service import lti
from grader.service.app import create_app, open_store
from grader.service.logtext import OneLineFormatter
from grader.service.lti import launch
from grader.service.settings import ServiceSettings

LMS = "https://lms.example"
PLATFORM = {"issuer": LMS, "client_id": "c1", "deployment_ids": ["d1"],
            "auth_login_url": LMS + "/auth", "auth_token_url": LMS + "/token",
            "key_set_url": LMS + "/jwks"}
URL = "http://grader.example"     # http: the HTTPS cookie path is another test's
FORGED = "\r\n2026-11-26 23:59:00,000 ERROR grader.service: the instructor's key was stolen"


@pytest.fixture
def course(tmp_path: Path) -> Iterator[tuple[TestClient, Path, object]]:
    data = tmp_path / "course"
    store = open_store(data)
    store.ensure_instructor()
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(PLATFORM))
    lti.register_platform_file(store, data, path, URL)
    app = create_app(ServiceSettings(data=data, base_url=URL), store)
    client = TestClient(app, base_url=URL, follow_redirects=False)
    yield client, data, store
    store.close()


def logins(store) -> int:
    return store.database.one("SELECT COUNT(*) AS n FROM lti_logins")["n"]


def database_bytes(data: Path) -> int:
    return sum(path.stat().st_size for path in data.glob("course.sqlite3*"))


def test_the_flood_of_logins_with_long_fields_is_refused_and_stores_nothing(course):
    client, data, store = course
    before = database_bytes(data)
    big = "x" * (60 * 1024)
    for _ in range(200):
        answer = client.post("/lti/login", data={"iss": LMS, "client_id": "c1",
                                                  "login_hint": big, "target_link_uri": big,
                                                  "lti_message_hint": big})
        assert answer.status_code == 400
    assert "not a login an LMS sends" in answer.text or "Field exceeded" in answer.text \
        or "could not be read" in answer.text, answer.text
    assert logins(store) == 0
    assert database_bytes(data) - before < 512 * 1024       # was 36 MB


def test_a_field_just_over_the_cap_is_refused_with_a_page_that_says_so(course):
    client, _, store = course
    answer = client.post("/lti/login", data={"iss": LMS, "client_id": "c1", "login_hint": "u1",
                                              "lti_message_hint": "h" * 3000})
    assert answer.status_code == 400
    assert "lti_message_hint is 3000 characters long (at most 2048)" in answer.text
    answer = client.get("/lti/login", params={"iss": LMS, "client_id": "c1",
                                              "login_hint": "u" * 3000})
    assert answer.status_code == 400 and logins(store) == 0
    # a real one, its Canvas-sized message hint under the cap, is taken
    answer = client.post("/lti/login", data={"iss": LMS, "client_id": "c1", "login_hint": "u1",
                                              "lti_message_hint": "h" * 1500,
                                              "target_link_uri": URL + "/lti/launch"})
    assert answer.status_code == 302 and answer.headers["location"].startswith(LMS + "/auth")
    assert logins(store) == 1


def test_an_unknown_platform_stores_nothing(course):
    client, _, store = course
    answer = client.post("/lti/login", data={"iss": "https://other.example",
                                              "login_hint": "u1"})
    assert answer.status_code in (400, 403) and logins(store) == 0


def test_the_logins_kept_per_platform_are_capped_the_newest_kept(course, monkeypatch):
    client, _, store = course
    monkeypatch.setattr(launch, "MAX_LOGINS_KEPT", 5)
    for number in range(12):
        answer = client.post("/lti/login", data={"iss": LMS, "client_id": "c1",
                                                  "login_hint": f"u{number}"})
        assert answer.status_code == 302
    rows = store.database.query("SELECT request FROM lti_logins ORDER BY rowid")
    assert [json.loads(row["request"])["login_hint"] for row in rows] == \
        ["u7", "u8", "u9", "u10", "u11"]


def test_an_lms_error_description_cannot_write_a_log_line_of_its_own(course, caplog):
    client, _, _ = course
    caplog.set_level(logging.INFO, logger="grader.service.lti")
    answer = client.post("/lti/launch", data={"error": "login_required",
                                               "error_description": "no session" + FORGED})
    assert answer.status_code == 400
    [line] = [record.getMessage() for record in caplog.records
              if record.name == "grader.service.lti" and "refused" in record.getMessage()]
    assert "\n" not in line and "\r" not in line
    assert "no session\\r\\n2026-11-26" in line


def test_the_service_log_format_keeps_every_message_on_one_line():
    record = logging.LogRecord("grader.service", logging.INFO, "", 0, "signed in %s",
                               ("Ada" + FORGED + "\x1b[2J\u202e",), None)
    line = OneLineFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert line == ("INFO grader.service: signed in Ada\\r\\n2026-11-26 23:59:00,000 ERROR "
                    "grader.service: the instructor's key was stolen\\x1b[2J\\u202e")

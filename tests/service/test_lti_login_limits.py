"""The anonymous OIDC login cannot grow the database nor push a real login out, and what the
LMS says cannot forge a log line (200 POST /lti/login with three 60 KB fields grew the database
from 0.2 to 36 MB in 3.5 s; 1,100 anonymous logins in 6.5 s evicted a real user's pending
login from a table capped at 1,000; an ``error_description`` with CR LF wrote a line of its
own).

The course's application (create_app) in process, through Starlette's TestClient, with one
platform registered from a file as ``--lti-platform`` does; its key set is served to the tool
by an in-process transport, so a launch's id_token is checked as a real one is.
"""

from __future__ import annotations

import html
import json
import logging
import time
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.testclient import TestClient

from grader.service import lti
from grader.service.app import create_app, open_store
from grader.service.logtext import OneLineFormatter
from grader.service.lti import binding, launch, platforms
from grader.service.lti.login_state import LOGIN_SECONDS, LoginState, login_key
from grader.service.lti.tool import Tool
from grader.service.settings import ServiceSettings

LMS = "https://lms.example"
PLATFORM = {"issuer": LMS, "client_id": "c1", "deployment_ids": ["d1"],
            "auth_login_url": LMS + "/auth", "auth_token_url": LMS + "/token",
            "key_set_url": LMS + "/jwks"}
URL = "http://grader.example"     # http: the HTTPS cookie path is another test's
FORGED = "\r\n2026-11-26 23:59:00,000 ERROR grader.service: the instructor's key was stolen"
LMS_KEY = RSAKey.generate_key(2048, auto_kid=True)     # the platform's: signs its id_tokens


@pytest.fixture
def course(tmp_path: Path) -> Iterator[tuple[TestClient, Path, object]]:
    data = tmp_path / "course"
    store = open_store(data)
    store.ensure_instructor()
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(PLATFORM))
    lti.register_platform_file(store, data, path, URL)
    app = create_app(ServiceSettings(data=data, base_url=URL), store)
    key_set = {"keys": [LMS_KEY.as_dict(private=False)]}
    lms = httpx.MockTransport(lambda request: httpx.Response(200, json=key_set)
                              if str(request.url) == PLATFORM["key_set_url"]
                              else httpx.Response(404))
    app.state.lti = Tool.open(store, data, http=httpx.Client(transport=lms))
    client = TestClient(app, base_url=URL, follow_redirects=False)
    yield client, data, store
    app.state.lti.close()
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
    assert logins(store) == 0            # its state is signed and carried, not stored


def test_an_unknown_platform_stores_nothing(course):
    client, _, store = course
    answer = client.post("/lti/login", data={"iss": "https://other.example",
                                              "login_hint": "u1"})
    assert answer.status_code in (400, 403) and logins(store) == 0


# --- a flood of logins, and the states a launch must bring back ------------------------------

def rows(store) -> int:
    """Rows in every table of the course's database."""
    tables = [row["name"] for row in store.database.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return sum(store.database.one(f"SELECT COUNT(*) AS n FROM {table}")["n"] for table in tables)


def log_in(client: TestClient, hint: str = "u1") -> dict[str, str]:
    """A login as the LMS starts it: the authorization request's fields (state, nonce)."""
    answer = client.post("/lti/login", data={"iss": LMS, "client_id": "c1", "login_hint": hint})
    assert answer.status_code == 302, answer.text
    return {name: values[0] for name, values in
            parse_qs(urlsplit(answer.headers["location"]).query).items()}


def id_token(nonce: str, sub: str = "u1", **claims) -> str:
    """The platform's id_token for a learner of the bound LMS course."""
    moment = int(time.time())
    body = {"iss": LMS, "aud": "c1", "sub": sub, "nonce": nonce, "iat": moment,
            "exp": moment + 300, "name": "Ada Lovelace",
            launch.LTI + "deployment_id": "d1",
            launch.LTI + "message_type": "LtiResourceLinkRequest",
            launch.LTI + "version": "1.3.0", launch.LTI + "roles": [launch.MEMBERSHIP + "Learner"],
            launch.LTI + "context": {"id": "course-1"},
            launch.LTI + "resource_link": {"id": "link-1"}, **claims}
    return jwt.encode({"alg": "RS256", "kid": LMS_KEY.kid}, body, LMS_KEY)


def bound(store) -> None:
    """The course bound to the LMS course the launches come from (learners may launch)."""
    platform = platforms.find_platform(store, LMS, "c1")
    binding.bind(store, binding.Binding(platform.id, "d1", "course-1"), who="the test")


def signed_in(answer) -> bool:
    return answer.status_code == 303 and answer.headers["location"].startswith("/lti/enter/")


def test_a_flood_of_anonymous_logins_stores_nothing_and_the_real_login_completes(course):
    client, _, store = course
    bound(store)
    ada = log_in(client)                     # her browser keeps its cookie
    before = rows(store)
    flood = TestClient(client.app, base_url=URL, follow_redirects=False)
    for number in range(100):                # anonymous: no cookie, a new browser each time
        log_in(flood, f"anyone{number}")
        flood.cookies.clear()
    assert rows(store) == before             # nothing kept, so nothing to push out
    answer = client.post("/lti/launch", data={"state": ada["state"],
                                               "id_token": id_token(ada["nonce"])})
    assert signed_in(answer), answer.text


def test_a_state_and_its_nonce_sign_in_once(course):
    client, _, store = course
    bound(store)
    ada = log_in(client)
    assert signed_in(client.post("/lti/launch", data={"state": ada["state"],
                                                       "id_token": id_token(ada["nonce"])}))
    # The same form again, and a fresh token of the platform with the same nonce.
    for token in (id_token(ada["nonce"]), id_token(ada["nonce"], iat=int(time.time()) - 5)):
        again = client.post("/lti/launch", data={"state": ada["state"], "id_token": token})
        assert again.status_code == 403 and "used already" in again.text
    # Another login's state with this nonce: the nonce is its login's, and no other's.
    other = log_in(client)
    mixed = client.post("/lti/launch", data={"state": other["state"],
                                              "id_token": id_token(ada["nonce"])})
    assert mixed.status_code == 403 and "nonce is not its login's" in html.unescape(mixed.text)


def test_a_forged_or_expired_state_is_refused(course):
    client, data, store = course
    bound(store)
    ada = log_in(client)
    state, nonce = ada["state"], ada["nonce"]
    fields = state.split(".")
    platform_changed = ".".join(fields[:1] + ["99"] + fields[2:])
    younger = ".".join(fields[:2] + [str(int(fields[2]) + 3600)] + fields[3:])
    other_nonce = ".".join(fields[:3] + ["n" * 43] + fields[4:])
    key = login_key(store)
    browser = client.cookies.get("ttt_lti_browser")
    login = LoginState.decode(key, state)
    unsigned = LoginState(login.platform, login.issued, nonce, login.browser, "").encode(b"k" * 32)
    for forged in (platform_changed, younger, other_nonce, unsigned, state + "x", "x" * 5000):
        answer = client.post("/lti/launch", data={"state": forged, "id_token": id_token(nonce)})
        assert answer.status_code == 400 and "state is unknown" in answer.text, forged
    old = LoginState.new(key, login.platform, browser, None,
                         clock=lambda: time.time() - LOGIN_SECONDS - 1)
    answer = client.post("/lti/launch", data={"state": old.encode(key),
                                               "id_token": id_token(old.nonce)})
    assert answer.status_code == 403 and "more than ten minutes" in answer.text
    # The real one still signs in: nothing above used it.
    assert signed_in(client.post("/lti/launch", data={"state": state,
                                                       "id_token": id_token(nonce)}))


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

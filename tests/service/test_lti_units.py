"""The LTI side's parts without a platform: the schema step, platform descriptions, the
tool's key, matching LMS users to the roster, the launch's clock skew, the grade and the
outbox's retries (a platform stand-in object, no network)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from grader.service import lti
from grader.service.app import open_store
from grader.service.course import record_queries
from grader.service.course.schema import migrate
from grader.service.course.storage import Store
from grader.service.lti import ags, binding, launch, outbox, people, platforms
from grader.service.lti.errors import LaunchRefused, PlatformError, RegistrationError
from grader.service.lti.service_token import ServiceTokens
from grader.service.lti.tool_keys import KEY_FILE, ToolKey
from service_helpers import database_at_version

LMS = "https://lms.example"
PLATFORM = {"issuer": LMS, "client_id": "c1", "deployment_ids": ["d1"],
            "auth_login_url": LMS + "/auth", "auth_token_url": LMS + "/token",
            "key_set_url": LMS + "/jwks"}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    course = open_store(tmp_path / "course")
    course.ensure_instructor()
    course.upsert_students([("s1", "Ada", "ada@example.edu"), ("s2", "Bob", "bob@example.edu")])
    yield course
    course.close()


def test_a_course_of_version_3_gains_the_lti_tables_and_keeps_its_students(tmp_path):
    database = database_at_version(tmp_path / "course.sqlite3", 3)
    with database.transaction() as db:
        db.execute("INSERT INTO students (id, token_nonce, token_hash, added_at) VALUES "
                   "('old', 'n', 'h', 't')")
    assert migrate(database) == [4, 5, 6, 7, 8, 9]
    assert database.one("SELECT COUNT(*) AS n FROM lti_outbox")["n"] == 0
    assert database.one("SELECT id FROM students")["id"] == "old"


def test_a_platform_file_is_checked_and_stored_and_the_urls_printed(store, tmp_path):
    path = tmp_path / "moodle.json"
    path.write_text(json.dumps({**PLATFORM, "auth_token_url": "not a url"}))
    with pytest.raises(RegistrationError, match="auth_token_url must be an http"):
        lti.register_platform_file(store, tmp_path / "course", path, "https://g.example")
    path.write_text(json.dumps({"issuer": LMS}))
    with pytest.raises(RegistrationError, match="lacks client_id, auth_login_url"):
        lti.register_platform_file(store, tmp_path / "course", path, "https://g.example")
    path.write_text("{not json")
    with pytest.raises(RegistrationError, match="is not JSON"):
        lti.register_platform_file(store, tmp_path / "course", path, "https://g.example")
    assert platforms.platforms(store) == []                       # nothing stored
    path.write_text(json.dumps(PLATFORM))
    said = lti.register_platform_file(store, tmp_path / "course", path, "https://g.example/")
    assert "OIDC login initiation URL: https://g.example/lti/login" in said
    assert "Redirect (launch) URL:     https://g.example/lti/launch" in said
    assert "Public key set URL:        https://g.example/lti/jwks.json" in said
    path.write_text(json.dumps({**PLATFORM, "deployment_ids": ["d2"]}))
    lti.register_platform_file(store, tmp_path / "course", path, "https://g.example")
    [stored] = platforms.platforms(store)
    assert stored.deployment_ids == ("d1", "d2")                   # several deployments
    path.write_text(json.dumps({**PLATFORM, "client_id": "c2"}))  # a second developer key
    lti.register_platform_file(store, tmp_path / "course", path, "https://g.example")
    assert platforms.find_platform(store, LMS, None) is None      # ambiguous without one
    assert platforms.find_platform(store, LMS, "c2").client_id == "c2"


def test_the_tool_key_is_private_and_its_set_public(tmp_path):
    key = ToolKey.load(tmp_path)
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600
    [public] = key.jwks()["keys"]
    assert set(public) == {"kty", "n", "e", "kid", "use", "alg"}
    token = key.sign({"iss": "c1"})
    assert jwt.decode(token, KeySet.import_key_set(key.jwks())).claims == {"iss": "c1"}


def test_an_lms_user_is_matched_by_link_then_ids_then_email(store):
    platform = platforms.add_platform(store, platforms.describe_platform(PLATFORM), who="t")
    with store.database.transaction() as db:
        match = lambda person: people.match_student(db, platform.id, person)   # noqa: E731
        assert match(people.Person("u9", email="ADA@example.edu")) == "s1"    # email
        assert match(people.Person("u9", sourcedid="s2", email="ada@example.edu")) == "s2"
        assert match(people.Person("u9", email="nobody@example.edu")) is None
        student, added = people.place_student(db, store, platform.id,
                                              people.Person("u1", "Ada L.", "ada@example.edu"))
        assert (student, added) == ("s1", False)
        # s1 is u1's now: another LMS user with her email is not her
        assert match(people.Person("u2", email="ada@example.edu")) is None
        student, added = people.place_student(db, store, platform.id,
                                              people.Person("instructor", "Eve"))
        assert added and student != "instructor"                  # never the teacher's id
    assert store.student("s1").name == "Ada L."


# --- the launch's clock -------------------------------------------------------------------

class StubKeySets:
    def __init__(self, key: RSAKey) -> None:
        self.key_set = KeySet([key])

    def get(self, url: str, kid: str | None) -> KeySet:
        return self.key_set


def _launch_with(store: Store, key: RSAKey, **claims: Any) -> launch.Launch:
    platforms.add_platform(store, platforms.describe_platform(PLATFORM), who="t")
    start = launch.start_login(store, {"iss": LMS, "login_hint": "u1"}, None,
                               "https://g.example/lti/launch")
    query = dict(part.split("=", 1) for part in start.redirect_url.split("?", 1)[1].split("&"))
    moment = int(time.time())
    body = {"iss": LMS, "aud": "c1", "sub": "u1", "nonce": query["nonce"], "iat": moment,
            "exp": moment + 300, launch.LTI + "deployment_id": "d1",
            launch.LTI + "message_type": "LtiResourceLinkRequest",
            launch.LTI + "version": "1.3.0",
            launch.LTI + "roles": [launch.MEMBERSHIP + "Learner"], **claims}
    token = jwt.encode({"alg": "RS256", "kid": key.kid}, body, key)
    return launch.validate_launch(store, StubKeySets(key), {"id_token": token,
                                                             "state": query["state"]},
                                  start.browser_id)


def test_a_small_clock_skew_is_accepted_and_a_large_one_refused(store):
    key = RSAKey.generate_key(2048, auto_kid=True)
    moment = int(time.time())
    assert _launch_with(store, key, iat=moment + 30).sub == "u1"        # LMS a bit ahead
    assert _launch_with(store, key, exp=moment - 30).sub == "u1"        # just expired
    with pytest.raises(LaunchRefused, match="issued in the future"):
        _launch_with(store, key, iat=moment + 600)
    with pytest.raises(LaunchRefused, match="has expired"):
        _launch_with(store, key, exp=moment - 600)
    with pytest.raises(LaunchRefused, match="authorized party"):
        _launch_with(store, key, aud=["c1", "other"])
    with pytest.raises(LaunchRefused, match="takes resource link launches"):
        _launch_with(store, key, **{launch.LTI + "message_type": "LtiDeepLinkingRequest"})
    with pytest.raises(LaunchRefused, match="speaks LTI 1.3.0"):
        _launch_with(store, key, **{launch.LTI + "version": "1.1"})


# --- grades and the outbox ----------------------------------------------------------------

def _linked(store: Store) -> None:
    """s1 is a member of an LMS course with one line item that takes scores."""
    platform = platforms.add_platform(store, platforms.describe_platform(PLATFORM), who="t")
    with store.database.transaction() as db:
        db.execute("INSERT INTO lti_contexts (platform, deployment_id, context_id, ags_scopes) "
                   "VALUES (?, 'd1', 'c', ?)", (platform.id, json.dumps([ags.SCORE_SCOPE])))
        db.execute("INSERT INTO lti_lineitems (context, resource_link_id, url) VALUES "
                   "(1, 'r', 'https://lms.example/items/1')")
        people.place_student(db, store, platform.id, people.Person("u1", sourcedid="s1"))
        people.record_member(db, 1, "u1", "s1", ("Learner",))


def _graded(store: Store, score: float) -> int:
    row = store.add_submission("s1", "mm_player.py", b"x", late=False, config="default")
    store.claim_next("t")
    store.finish(row.id, score=score, max_score=100.0, report_text="r", seconds=1.0,
                 results_json=json.dumps({"score": score, "tests": [], "extra_data": {}}))
    return row.id


def test_the_grade_follows_the_choice_and_the_records(store):
    _linked(store)
    assert lti.grade_changed(store, "s2") == 0                     # not in the LMS
    assert lti.grade_changed(store, "s1") == 0                     # nothing graded yet
    first = _graded(store, 90.0)
    _graded(store, 40.0)
    course = ags.Course(base_url="https://g.example")
    assert lti.grade_changed(store, "s1", course) == 1
    assert outbox.rows(store)[0].score_given == 40.0               # latest, the default
    store.set_setting(ags.CHOICE_SETTING, "best")
    store.set_setting("base_url", "https://g.example")   # as serve remembers it
    record_queries.set_adjustment(store, first, 5, "a fine comment", who="instructor")
    assert lti.submission_changed(store, first) == 1
    [waiting] = outbox.rows(store)
    assert waiting.score_given == 95.0                            # best, adjusted
    payload = json.loads(store.database.one("SELECT payload FROM lti_outbox WHERE id = ?",
                                            (waiting.id,))["payload"])
    assert "adjustment +5: a fine comment" in payload["comment"]
    assert f"https://g.example/submissions/{first}" in payload["comment"]
    assert outbox.counts(store)["superseded"] == 1
    assert lti.grades_changed(store, course) == 0                  # nothing changed since


def test_grades_go_only_to_the_lms_course_the_course_is_bound_to(store):
    _linked(store)                                   # s1 in LMS course "c" (deployment d1)
    _graded(store, 80.0)
    assert lti.grade_changed(store, "s1") == 1       # not bound yet (an older course): sent
    platform = platforms.platforms(store)[0]
    binding.bind(store, binding.Binding(platform.id, "d1", "c"), who="the instructor")
    _graded(store, 85.0)
    assert lti.grade_changed(store, "s1") == 1       # bound to "c": still its grade
    binding.bind(store, binding.Binding(platform.id, "d1", "other"), who="the instructor")
    _graded(store, 90.0)
    assert lti.grade_changed(store, "s1") == 0       # re-bound: nothing more to "c"


class FlakyTool:
    """A tool whose platform answers what ``answers`` says, in turn (an exception: refused)."""

    def __init__(self, store: Store, answers: list[bool]) -> None:
        self.store = store
        self.answers = answers
        self.sent: list[dict[str, Any]] = []


def test_the_sender_backs_off_then_fails_and_a_resend_sends(store, monkeypatch):
    _linked(store)
    _graded(store, 70.0)
    lti.grade_changed(store, "s1")
    tool = FlakyTool(store, [False, False, True])

    def send(tool: FlakyTool, platform: Any, lineitem: str, payload: dict[str, Any]) -> None:
        if not tool.answers.pop(0):
            raise PlatformError("the LMS is down", 503)
        tool.sent.append(payload)

    monkeypatch.setattr(ags, "send_score", send)
    sender = outbox.Sender(tool, base_delay=0.0, max_attempts=2)
    assert sender.send_due() == 0
    [row] = outbox.rows(store)
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, "the LMS is down")
    sender.wake(now=True)                         # a resting platform is asked again
    assert sender.send_due() == 0
    assert outbox.rows(store)[0].status == "failed"
    assert sender.send_due() == 0                 # a failed row waits for the instructor
    assert outbox.resend(store) == 1
    sender.wake(now=True)
    assert sender.send_due() == 1 and len(tool.sent) == 1
    assert outbox.counts(store)["sent"] == 1
    assert outbox.delay(1) == 30.0 and outbox.delay(30) == outbox.MAX_DELAY


def test_each_login_draws_its_own_state_and_nonce_for_one_browser(store):
    platforms.add_platform(store, platforms.describe_platform(PLATFORM), who="t")
    one = launch.start_login(store, {"iss": LMS, "login_hint": "u"}, None, "https://g/l")
    two = launch.start_login(store, {"iss": LMS, "login_hint": "u"}, one.browser_id,
                             "https://g/l")
    assert one.browser_id == two.browser_id and one.redirect_url != two.redirect_url


def test_a_service_call_reuses_its_token_and_asks_anew_after_a_401(store, tmp_path):
    platform = platforms.add_platform(store, platforms.describe_platform(PLATFORM), who="t")
    issued, seen, down = [], [], []

    def lms(request: httpx.Request) -> httpx.Response:
        if down:
            raise httpx.ConnectError("refused", request=request)
        if request.url.path == "/token":
            issued.append(f"token{len(issued) + 1}")
            return httpx.Response(200, json={"access_token": issued[-1], "expires_in": 3600})
        seen.append(request.headers["authorization"])
        return httpx.Response(401 if len(seen) == 2 else 200, json={})

    client = httpx.Client(transport=httpx.MockTransport(lms))
    tokens = ServiceTokens(ToolKey.load(tmp_path), client)
    statuses = [tokens.call(platform, ["s"], "the roster service", "GET", LMS + "/members")
                .status_code for _ in range(3)]
    assert statuses == [200, 401, 200]
    assert seen == ["Bearer token1", "Bearer token1", "Bearer token2"]   # the 401 dropped it
    down.append(True)                      # token2 is still in hand: the service is down
    with pytest.raises(PlatformError, match="the roster service cannot be reached"):
        tokens.call(platform, ["s"], "the roster service", "GET", LMS + "/members")

"""Sessions the server can end, and the other findings of the page's security review, over
HTTP against the application in this process (``create_app`` through httpx's ASGI
transport: no server, no grading threads, nothing graded).

A session's cookie names a random id and nothing else; signing out, a revoked or renewed
link, age and idleness end it for every copy of the cookie; a signed-in browser is asked
before another person's link replaces its session; an id too large for SQLite is a 404;
an https:// course says Strict-Transport-Security.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from starlette.routing import Route

httpx = pytest.importorskip("httpx")

from grader.service.app import create_app, open_store  # noqa: E402
from grader.service.course import auth  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402
from grader.service.settings import ServiceSettings  # noqa: E402

pytestmark = pytest.mark.anyio
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
COOKIE = auth.SESSION_COOKIE
HUGE = "99999999999999999999999"          # 23 digits: past SQLite's 2**63 - 1


class Course:
    """A course in a temporary folder, its application, and browsers for it."""

    def __init__(self, data: Path, base_url: str = "") -> None:
        self.store: Store = open_store(data)
        self.store.upsert_students([("alice", "Alice Liddell", ""), ("bob", "Bob", "")])
        self.instructor_token = self.store.ensure_instructor()
        self.app = create_app(ServiceSettings(data=data, base_url=base_url), self.store)

    def link(self, student: str) -> str:
        return f"/s/{self.store.student_token(student)}"

    def browser(self, url: str = "http://testserver", errors: bool = True,
                **headers: str) -> "httpx.AsyncClient":
        """A client of the app (``errors=False``: a 500 is an answer, not an exception)."""
        transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=errors)
        return httpx.AsyncClient(transport=transport, base_url=url, headers=headers,
                                 follow_redirects=False)

    async def signed_in(self, student: str) -> "httpx.AsyncClient":
        browser = self.browser()
        answer = await browser.get(self.link(student))
        assert answer.status_code == 303, answer.text
        return browser

    def rows(self) -> list[dict]:
        return [dict(row) for row in self.store.database.query("SELECT * FROM sessions")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def course(tmp_path: Path) -> Course:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


async def _boom(request):
    raise RuntimeError("a bug of the page")


def _copy(course: Course, cookie: str) -> "httpx.AsyncClient":
    """Another browser that sends a copied cookie (and keeps none of its own)."""
    return course.browser(cookie=f"{COOKIE}={cookie}")


async def _who(browser: "httpx.AsyncClient") -> str | None:
    """Whom the home page says is signed in (None: it asks to sign in)."""
    page = (await browser.get("/")).text
    found = re.search(r'class="who">signed in as ([^<]+)<', page)
    return found.group(1) if found else None


async def test_the_cookie_names_a_random_session_and_says_nothing_else(course: Course):
    answer = await course.browser().get(course.link("alice"))
    header = answer.headers["set-cookie"]
    value = answer.cookies[COOKIE]
    attributes = {part.strip().split("=")[0].lower() for part in header.split(";")[1:]}
    assert {"httponly", "path", "samesite"} <= attributes and "secure" not in attributes
    assert "samesite=lax" in header.lower() and "path=/" in header.lower()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", value)                  # 256 random bits
    decoded = base64.urlsafe_b64decode(value + "=")
    token_hash = auth.hash_token(course.store.student_token("alice"))
    for secret in (b"alice", token_hash.encode(), b"token_hash"):
        assert secret not in decoded and secret.decode() not in value
    [row] = course.rows()
    assert row["id_hash"] == hashlib.sha256(value.encode()).hexdigest()   # never the id
    assert row["token_hash"] == token_hash and row["ended_at"] is None


async def test_signing_out_ends_the_session_for_every_copy_of_its_cookie(course: Course):
    alice = await course.signed_in("alice")
    cookie = alice.cookies[COOKIE]
    copied = _copy(course, cookie)
    assert await _who(copied) == "alice"
    home = (await alice.get("/")).text
    csrf = CSRF.search(home).group(1)
    out = await alice.post("/signout", data={"csrf": csrf})
    assert out.status_code == 303 and f'{COOKIE}=""' in out.headers["set-cookie"]
    assert await _who(copied) is None                                 # the copy signs nobody in
    assert (await copied.get("/api/submissions")).status_code == 401
    assert course.rows()[0]["ended_at"] is not None
    again = await copied.post("/signout", data={"csrf": csrf})        # its CSRF token is dead too
    assert again.status_code == 403


async def test_the_csrf_token_is_the_sessions_own(course: Course):
    alice, bob = await course.signed_in("alice"), await course.signed_in("bob")
    alices = CSRF.search((await alice.get("/")).text).group(1)
    bobs = CSRF.search((await bob.get("/")).text).group(1)
    assert alices != bobs and alices not in alice.cookies[COOKIE]
    assert (await bob.post("/signout", data={"csrf": alices})).status_code == 403
    assert (await bob.post("/signout", data={})).status_code == 403
    assert await _who(bob) == "bob"
    assert (await course.browser().post("/signout", data={"csrf": ""})).status_code == 403


@pytest.mark.parametrize("how", ["revoke", "renew"])
async def test_a_revoked_or_renewed_link_ends_its_sessions(course: Course, how: str):
    alice = await course.signed_in("alice")
    bob = await course.signed_in("bob")
    old_link = course.link("alice")
    if how == "revoke":
        course.store.set_revoked("alice")
    else:
        course.store.renew_student_token("alice")
    assert await _who(alice) is None and await _who(bob) == "bob"
    assert (await alice.get(old_link)).status_code == 403
    if how == "revoke":                   # reinstated, the link signs in; the session stays ended
        course.store.set_revoked("alice", False)
        assert await _who(alice) is None
    ended = {row["token_hash"]: row["ended_at"] for row in course.rows()}
    assert ended[auth.hash_token(old_link[3:])] is not None
    assert (await alice.get(course.link("alice"))).status_code == 303
    assert await _who(alice) == "alice"


@pytest.mark.parametrize("column, age", [("created_at", auth.SESSION_MAX_AGE + 60),
                                         ("seen_at", auth.SESSION_IDLE + 60)])
async def test_old_or_idle_sessions_are_refused_and_purged(course: Course, column: str, age: int):
    alice = await course.signed_in("alice")
    then = (datetime.now(timezone.utc) - timedelta(seconds=age)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")
    with course.store.database.transaction() as db:
        db.execute(f"UPDATE sessions SET {column} = ?", (then,))
    assert await _who(alice) is None
    await course.signed_in("bob")                             # a sign-in purges the dead ones
    assert [row["token_hash"] for row in course.rows()] == \
        [auth.hash_token(course.store.student_token("bob"))]


async def test_a_session_in_use_is_seen_and_stays(course: Course):
    alice = await course.signed_in("alice")
    long_ago = (datetime.now(timezone.utc) - timedelta(days=3)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")
    with course.store.database.transaction() as db:
        db.execute("UPDATE sessions SET seen_at = ?", (long_ago,))
    assert await _who(alice) == "alice"
    assert course.rows()[0]["seen_at"] > long_ago


async def test_another_persons_link_asks_before_replacing_the_session(course: Course):
    alice = await course.signed_in("alice")
    cookie = alice.cookies[COOKIE]
    # another site makes alice's browser open bob's link: nothing changes, she is asked
    asked = await alice.get(course.link("bob"))
    assert asked.status_code == 200 and "set-cookie" not in asked.headers
    assert "Alice Liddell (alice)" in asked.text and "Bob (bob)" in asked.text
    assert f'action="{course.link("bob")}"' in asked.text and 'method="post"' in asked.text
    assert await _who(alice) == "alice" and alice.cookies[COOKIE] == cookie
    # another site's form cannot say yes (no CSRF token; SameSite=Lax keeps the cookie too)
    forged = await alice.post(course.link("bob"), data={"csrf": "forged"})
    assert forged.status_code == 403 and await _who(alice) == "alice"
    stranger = await course.browser().post(course.link("bob"), data={})
    assert stranger.status_code == 403
    # alice herself says yes: her session ends, bob's starts
    csrf = CSRF.search(asked.text).group(1)
    switched = await alice.post(course.link("bob"), data={"csrf": csrf})
    assert switched.status_code == 303 and switched.headers["location"] == "/"
    assert alice.cookies[COOKIE] != cookie and await _who(alice) == "bob"
    assert await _who(_copy(course, cookie)) is None


async def test_own_link_again_or_a_link_while_signed_out_signs_in_as_before(course: Course):
    alice = await course.signed_in("alice")
    cookie = alice.cookies[COOKIE]
    again = await alice.get(course.link("alice"))
    assert again.status_code == 303 and again.headers["location"] == "/"
    assert alice.cookies[COOKIE] == cookie and len(course.rows()) == 1
    teacher = course.browser()
    answer = await teacher.get(f"/s/{course.instructor_token}")
    assert answer.status_code == 303 and answer.headers["location"] == "/instructor"
    asked = await teacher.get(course.link("alice"))
    assert asked.status_code == 200 and "the instructor" in asked.text
    forged = await course.browser().get("/s/" + "A" * 43)
    assert forged.status_code == 403 and "set-cookie" not in forged.headers


async def test_ids_too_large_for_sqlite_are_404_and_log_nothing(course: Course, caplog):
    alice = await course.signed_in("alice")
    teacher = course.browser(authorization=f"Bearer {course.instructor_token}")
    bearer = course.browser(authorization=f"Bearer {course.store.student_token('alice')}")
    caplog.set_level(logging.INFO)
    for client, url in ((bearer, f"/api/submissions/{HUGE}"),
                        (alice, f"/api/submissions/{HUGE}"),
                        (alice, f"/submissions/{HUGE}"),
                        (alice, f"/submissions/{HUGE}/file"),
                        (alice, "/submissions/" + "9" * 5000),      # past int()'s own limit
                        (teacher, f"/instructor/submissions/{HUGE}"),
                        (teacher, f"/instructor/submissions/{HUGE}/file")):
        answer = await client.get(url)
        assert answer.status_code == 404, (url, answer.text)
        assert "no such" in answer.text and "Traceback" not in answer.text
    assert (await bearer.get(f"/api/submissions/{2 ** 63 - 1}")).status_code == 404
    retry = await teacher.post(f"/instructor/submissions/{HUGE}/retry")
    assert retry.status_code == 404
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


async def test_an_https_course_says_strict_transport_security_and_secure_cookies(tmp_path):
    secure = Course(tmp_path / "secure", base_url="https://grader.example.org")
    plain = Course(tmp_path / "plain")
    try:
        answer = await secure.browser("https://testserver").get(secure.link("alice"))
        assert answer.headers["strict-transport-security"] == "max-age=31536000"
        assert "; secure" in answer.headers["set-cookie"].lower()
        for url in ("/", "/no/such/page", f"/api/submissions/{HUGE}"):
            found = await secure.browser("https://testserver").get(url)
            assert found.headers["strict-transport-security"] == "max-age=31536000", url
        secure.app.router.routes.append(Route("/boom", _boom))    # a 500 says it too
        error = await secure.browser("https://testserver", errors=False).get("/boom")
        assert error.status_code == 500 and "error id" in error.text
        assert error.headers["strict-transport-security"] == "max-age=31536000"
        http = await plain.browser().get(plain.link("alice"))
        assert "strict-transport-security" not in http.headers
        assert "secure" not in http.headers["set-cookie"].lower()
    finally:
        secure.store.close()
        plain.store.close()

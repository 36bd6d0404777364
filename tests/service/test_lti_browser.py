"""The page inside the LMS's frame, over HTTPS, as a browser sees it.

The course runs as the README says, ``python3 -m grader serve --ssl-certfile ... --ssl-keyfile
...`` with a certificate made here (tests trust it: httpx by its file, Chromium by
``ignore_https_errors``), on https://127.0.0.1:P; the LMS stand-in (tests/service/
lti_platform.py) serves on http://localhost:Q, another site, and frames the tool's launch in
its course page beside its storage frame (the LTI client-side postMessage storage), as
Canvas does. Checked here: the frame's cookies over HTTPS on every Python (Starlette's own
``partitioned=True`` fails below 3.14), the CSP that a launch's Origin header may not write,
refusal pages that show inside any frame, the new tab that asks before replacing a session,
and in headless Chromium the student's launch, hand-in and grade with third-party cookies
allowed and blocked.
"""

from __future__ import annotations

import json
import os
import re
import ssl
from pathlib import Path
from typing import Any, Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from browser_helpers import (chromium_blocking_cookies, hand_in_and_wait, new_page,  # noqa: E402
                             framed, recorded)
from lti_platform import LtiPlatform  # noqa: E402
from service_helpers import (free_port, make_certificate, open_store,  # noqa: E402
                             start_https)

from grader.service import lti  # noqa: E402
from grader.service.lti import binding  # noqa: E402

EVIL_ORIGIN = "* ; script-src-elem * 'unsafe-inline'"
GRADING_SECONDS = 300


# --- the course over HTTPS -------------------------------------------------------------------







class Course:
    """The course on https://127.0.0.1:P, the LMS on http://localhost:Q, each registered
    with the other (the platform from a file, as ``--lti-platform`` stores it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cert, self.key = make_certificate(folder)
        self.data = folder / "course"
        store = open_store(self.data)
        store.ensure_instructor()
        store.upsert_students([("S1815", "Ada L.", ""),
                               ("g.hopper", "Grace", "grace@example.edu")])
        self.platform = LtiPlatform(url_host="localhost").start()
        port = free_port()
        self.url = f"https://127.0.0.1:{port}"
        self.platform.register_tool(login_url=self.url + "/lti/login",
                                    redirect_uris=[self.url + "/lti/launch"],
                                    jwks_url=self.url + "/lti/jwks.json")
        described = folder / "platform.json"
        described.write_text(json.dumps({
            "issuer": self.platform.issuer, "client_id": self.platform.client_id,
            "deployment_ids": self.platform.deployment_ids,
            "auth_login_url": self.platform.auth_login_url,
            "auth_token_url": self.platform.auth_token_url,
            "key_set_url": self.platform.key_set_url}))
        stored = lti.register_platform_file(store, self.data, described, self.url)
        assert "LTI platform stored" in stored
        row = store.database.one("SELECT id FROM lti_platforms WHERE issuer = ?",
                                 (self.platform.issuer,))
        binding.bind(store, binding.Binding(        # as the instructor's first launch does
            int(row["id"]), self.platform.deployment_id, self.platform.context_id,
            self.platform.context_title), who="the test")
        store.close()
        self.server = start_https(self.data, port, self.cert, self.key)
        assert self.server.url == self.url

    def client(self, **options: Any) -> "httpx.Client":
        """A browser without JavaScript that trusts the course's certificate."""
        return httpx.Client(verify=ssl.create_default_context(cafile=str(self.cert)),
                            timeout=30.0, **options)

    def launch(self, who: str, client: "httpx.Client", role: str | None = None) -> Any:
        return self.platform.follow_launch(self.platform.launch_url(who, role), client)

    def policy(self, path: str = "/") -> str:
        with self.client() as client:
            return client.get(self.url + path).headers["content-security-policy"]

    def stop(self) -> None:
        self.server.stop()
        self.platform.stop()


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Course]:
    running = Course(tmp_path_factory.mktemp("https"))
    os.environ["SSL_CERT_FILE"] = str(running.cert)   # the platform fetches the tool's keys
    try:
        yield running
    finally:
        os.environ.pop("SSL_CERT_FILE", None)
        running.stop()


def ancestors(policy: str) -> set[str]:
    """The sources of a CSP's frame-ancestors directive (the last directive of ours)."""
    return set(policy.split("frame-ancestors", 1)[1].split(";")[0].split())


def signed_in_as(page: Any) -> str | None:
    found = re.search(r"signed in as ([^<]+)<", page.text)
    return found.group(1).strip() if found else None


# --- HTTPS: the frame's cookies ----------------------------------------------------------------

def test_an_https_login_sets_the_frame_cookie_on_every_python(course: Course) -> None:
    cookies: list[str] = []

    def keep(response: Any) -> None:
        cookies.extend(response.headers.get_list("set-cookie"))

    with course.client(event_hooks={"response": [keep]}) as browser:
        to_tool = browser.get(course.platform.launch_url("ada"))
        assert to_tool.status_code == 302
        login = browser.get(to_tool.headers["location"])
        assert login.status_code == 302, login.text[:300]          # was 500 below 3.14
        assert login.headers["location"].startswith(course.platform.auth_login_url)
        page = course.platform.follow_launch(login.headers["location"], browser)
        assert signed_in_as(page) == "S1815", page.text[:500]
    named = {line.split("=", 1)[0]: [part.strip() for part in line.split(";")]
             for line in cookies}
    for name in ("ttt_lti_browser", "ttt_session"):      # the login's, then the launch's
        parts = set(named[name][1:])
        assert {"Secure", "SameSite=None", "Partitioned", "HttpOnly", "Path=/"} <= parts
        assert any(part.startswith("Max-Age=") for part in parts)


# --- the CSP a launch may not write ----------------------------------------------------------

def test_a_launchs_origin_header_never_writes_the_csp(course: Course) -> None:
    before = course.policy()
    assert "frame-ancestors 'self' " + course.platform.issuer in before
    with course.client(headers={"origin": EVIL_ORIGIN}) as learner:
        page = course.launch("grace", learner)
        assert signed_in_as(page) == "g.hopper"
    with course.client(headers={"origin": "https://school.example.edu"}) as learner:
        course.launch("ada", learner)         # a well-formed origin, from a learner: not kept
    assert course.policy() == before
    assert course.policy("/lti/jwks.json") == before
    with course.client(headers={"origin": EVIL_ORIGIN}) as teacher:
        course.launch("alan", teacher)                      # not even from the instructor
    assert course.policy() == before
    # The instructor's launch from the school's domain frames the course there.
    with course.client(headers={"origin": "https://School.Example.edu"}) as teacher:
        course.launch("alan", teacher)
    after = course.policy()
    assert ancestors(after) == ancestors(before) | {"https://school.example.edu"}
    assert after.split("frame-ancestors")[0] == before.split("frame-ancestors")[0]
    # A row an older version stored is checked again when read.
    store = open_store(course.data)
    try:
        with store.database.transaction() as db:
            row = db.execute("SELECT id, frame_origins FROM lti_platforms").fetchone()
            db.execute("UPDATE lti_platforms SET frame_origins = ? WHERE id = ?",
                       (json.dumps(json.loads(row["frame_origins"]) + [EVIL_ORIGIN]),
                        row["id"]))
    finally:
        store.close()
    with course.client() as teacher:
        course.launch("alan", teacher)                 # a launch reads the origins again
    assert course.policy() == after
    assert "unsafe-inline" not in after and " * " not in after + " "


# --- refusal pages in the school's frame -----------------------------------------------------

def test_refusal_pages_show_in_any_frame_and_no_other_page_does(course: Course) -> None:
    with course.client() as browser:
        assert signed_in_as(course.launch("grace", browser)) == "g.hopper"
        refused = [browser.get(course.url + "/lti/login"),
                   browser.get(course.url + "/lti/login?iss=https%3A%2F%2Fnobody.example"
                               "&login_hint=x"),
                   browser.post(course.url + "/lti/launch", data={"state": "made-up",
                                                                  "id_token": "x.y.z"})]
        for page in refused:
            assert page.status_code in (400, 403) and 'role="alert"' in page.text
            policy = page.headers["content-security-policy"]
            assert "frame-ancestors *" in policy and "script-src 'self'" in policy
            assert "x-frame-options" not in page.headers
            # nothing of the session in a page any site may frame: no name, no form
            assert "signed in as" not in page.text and 'name="csrf"' not in page.text
        for path in ("/", "/lti/jwks.json", "/instructor"):
            page = browser.get(course.url + path)
            assert "frame-ancestors *" not in page.headers["content-security-policy"]


# --- the new tab asks before it replaces a session -------------------------------------------

def test_the_new_tab_asks_before_it_replaces_someone_elses_session(course: Course) -> None:
    import http.cookiejar

    class NoSessionCookie(http.cookiejar.DefaultCookiePolicy):
        def set_ok(self, cookie: Any, request: Any) -> bool:   # a frame that drops it
            return cookie.name != "ttt_session" and super().set_ok(cookie, request)

    with course.client(cookies=http.cookiejar.CookieJar(NoSessionCookie())) as framed:
        page = course.launch("ada", framed)
        link = re.search(r'href="(/lti/enter/[^"]+\?tab=1)"', page.text)
        assert link, page.text[:800]
    with course.client(follow_redirects=True) as grace:
        assert signed_in_as(course.launch("grace", grace)) == "g.hopper"
        asked = grace.get(course.url + link.group(1))
        assert asked.status_code == 200 and "Sign in as someone else?" in asked.text
        assert "Ada" in asked.text and "Grace" in asked.text
        assert signed_in_as(grace.get(course.url + "/")) == "g.hopper"    # nothing changed
        action = course.url + link.group(1).split("?")[0]
        assert grace.post(action, data={}).status_code == 403            # no CSRF token
        assert signed_in_as(grace.get(course.url + "/")) == "g.hopper"
        csrf = re.search(r'name="csrf" value="([^"]+)"', asked.text).group(1)
        switched = grace.post(action, data={"csrf": csrf})
        assert signed_in_as(switched) == "S1815"
        assert grace.post(action, data={"csrf": csrf}).status_code == 403     # used once


# --- cookie-less launches: the platform's storage --------------------------------------------

def test_a_launch_without_cookies_completes_only_from_the_tools_own_page(course: Course) -> None:
    import http.cookiejar
    platform = course.platform
    nothing = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    with course.client(cookies=nothing) as framed:
        hint = platform.framed_launch_url("ada").rsplit("/", 1)[1]
        start = framed.get(f"{platform.url}/launch/{hint}?method=post")
        fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', start.text))
        assert fields["lti_storage_target"] == platform.STORAGE_FRAME
        put = framed.post(course.url + "/lti/login", data=fields)
        assert put.status_code == 200 and 'data-action="put"' in put.text
        assert "frame-ancestors *" in put.headers["content-security-policy"]
        assert f'data-origin="{platform.url}"' in put.text
        state = re.search(r'data-value="([^"]+)"', put.text).group(1)
        assert f'data-key="ttt_state_{state}"' in put.text
        following = re.search(r'data-next="([^"]+)"', put.text).group(1).replace("&amp;", "&")
        get = platform.follow_launch(following, framed)
        assert get.status_code == 200 and 'data-action="get"' in get.text, get.text[:500]
        id_token = re.search(r'name="id_token" value="([^"]+)"', get.text).group(1)
        checked = course.url + "/lti/launch/checked"
        form = {"id_token": id_token, "state": state}
        # Another site's form (an attacker posting their own launch to a victim's browser)
        for headers in ({"sec-fetch-site": "cross-site", "origin": "https://evil.example"},
                        {"origin": "https://evil.example"}, {"sec-fetch-site": "same-site"},
                        {}):
            refused = framed.post(checked, data=form, headers=headers)
            assert refused.status_code == 403, headers
        done = framed.post(checked, data=form, headers={"sec-fetch-site": "same-origin",
                                                         "origin": "null"})
        assert done.status_code == 303 and done.headers["location"].startswith("/lti/enter/")
        again = framed.post(checked, data=form, headers={"sec-fetch-site": "same-origin"})
        assert again.status_code == 403                                   # once


# --- in Chromium: the launch inside the LMS's course page, cross-site -------------------------


# The two hand-ins in the LMS's frame: test_lti_end_to_end.py makes them in the normal run
# (tests 3 and 4, in both LMS profiles, over HTTPS); these, on a hand-registered platform,
# run with the slow ones (python -m pytest -m slow).
@pytest.mark.slow
@pytest.mark.grades(1)
def test_in_the_lms_frame_with_third_party_cookies_allowed(course: Course, chromium,
                                                           shots: Path) -> None:
    problems: list[str] = []
    page = new_page(chromium, problems, ignore_https_errors=True)
    page.goto(course.platform.framed_launch_url("ada"))
    tool = framed(page, "Hand in mm_player.py", problems)
    assert "Ada Lovelace" in tool.inner_text("h1")
    assert "signed in as S1815" in tool.inner_text("header")
    assert tool.url.startswith(course.url)                    # cross-site: 127.0.0.1 in localhost
    page.screenshot(path=str(shots / "lti-framed-student.png"))
    hand_in_and_wait(tool)
    score = course.platform.only_score_for("ada")
    assert (score["scoreGiven"], score["scoreMaximum"]) == (100, 100)
    assert problems == [], problems


@pytest.mark.slow
@pytest.mark.grades(1)
def test_in_the_lms_frame_with_its_cookies_blocked_the_platforms_storage_signs_in(
        course: Course, chromium, tmp_path: Path, shots: Path) -> None:
    problems: list[str] = []
    platform = course.platform
    with chromium_blocking_cookies(chromium, tmp_path / "profile", course.url,
                                   platform.url) as context:
        page = recorded(context.new_page(), problems)
        page.goto(platform.framed_launch_url("grace"))
        tool = framed(page, "Open the page in a new tab", problems)
        page.screenshot(path=str(shots / "lti-framed-blocked.png"))
        assert [(one["subject"], one["found"]) for one in platform.storage_requests()
                if one["origin"] == course.url][-2:] == [("lti.put_data", True),
                                                         ("lti.get_data", True)]
        assert context.cookies(course.url) == []               # the frame kept no cookie
        with context.expect_page() as opened:
            tool.locator("a:has-text('in a new tab')").click()
        tab = recorded(opened.value, problems)
        tab.wait_for_selector("h1:has-text('Hand in mm_player.py')")
        assert "signed in as g.hopper" in tab.inner_text("header")
        hand_in_and_wait(tab)
        score = platform.only_score_for("grace")
        assert (score["scoreGiven"], score["scoreMaximum"]) == (100, 100)
    assert problems == [], problems


def test_a_storage_frame_that_listens_late_still_gets_the_launchs_state(
        course: Course, chromium, tmp_path: Path) -> None:
    """The LMS's storage frame may load after the tool's: the tool asks again until it is
    answered (a real race: the first message went nowhere and the frame never signed in)."""
    problems: list[str] = []
    platform = course.platform
    platform.__dict__["storage_late_ms"] = 1500
    try:
        with chromium_blocking_cookies(chromium, tmp_path / "profile", course.url,
                                       platform.url) as context:
            page = recorded(context.new_page(), problems)
            before = len(platform.storage_requests())
            page.goto(platform.framed_launch_url("grace"))
            framed(page, "Open the page in a new tab", problems)
            asked = [(one["subject"], one["found"])
                     for one in platform.storage_requests()[before:]
                     if one["origin"] == course.url]
            assert ("lti.put_data", True) in asked and ("lti.get_data", True) in asked
    finally:
        platform.__dict__.pop("storage_late_ms", None)
    assert problems == [], problems

"""Issue 33's security review, again, against the fixed page: each attack that got through
the fixes (a TA's launch that frames the course anywhere, the registration page that any
origin may frame showing the session, one registration code registering two platforms at
once), and compact checks of those that held where no other test shows them.

The tool runs under uvicorn on 127.0.0.1 and the platform is tests/service/lti_platform.py,
as in test_lti_launch.py (the tool and its helpers: lti_tool.py).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("lti1p3platform")

from lti_platform import LIS, LtiPlatform  # noqa: E402
from lti_tool import CANVAS_TA, ToolServer, launch  # noqa: E402

from grader.service.lti import addresses, platforms, registration  # noqa: E402
from grader.service.lti.errors import RegistrationError  # noqa: E402

def ancestors(tool: ToolServer, path: str = "/") -> set[str]:
    policy = httpx.get(tool.url + path).headers["content-security-policy"]
    return set(policy.split("frame-ancestors", 1)[1].split(";")[0].split())


# --- the frame origins: only the instructor's launch records one -----------------------------

def test_a_tas_launch_never_lets_another_site_frame_the_course(tool, platform):
    """A TA replays their own launch (their login, the LMS's id_token) with any Origin
    header: before, a staff launch's Origin became a frame-ancestor of every page, so a TA
    could let their own site frame the instructor's pages (clickjacking the settings)."""
    before = ancestors(tool)
    with tool.browser(headers={"origin": "https://ta-site.example"}) as ta:
        page = launch(platform, "barbara", ta, role=CANVAS_TA)
        assert page.status_code == 200 and str(page.url) == tool.url + "/instructor"
    assert ancestors(tool) == before
    assert "https://ta-site.example" not in platforms.frame_origins(tool.store)
    with tool.browser(headers={"origin": "https://school.example.edu"}) as teacher:
        launch(platform, "alan", teacher)             # the instructor's: the school's domain
    assert ancestors(tool) == before | {"https://school.example.edu"}


@pytest.mark.parametrize("seen", [
    "HTTPS://SCHOOL.EXAMPLE.EDU.", "https://school.example.edu/", "https://xn--schl-0qa.example",
    "https://schöl.example", "https://school.example.edu:0", "https://" + "a" * 300 + ".example",
    "https://school.example.edu\t", "https://school.example.edu, https://evil.example",
    "https://*.example.edu", "https://school.example.edu 'unsafe-inline'"])
def test_an_origin_header_variant_is_stored_bare_or_not_at_all(tool, platform, seen):
    """Origin variants an instructor's browser (or their replayed launch) might send: an
    upper-case one is lower-cased, punycode is a name like any other, anything else
    (a trailing dot, a path, Unicode, port 0, 300+ characters, a list, a wildcard, a source
    keyword) is dropped; no value ever reaches the CSP as it came."""
    stored = platforms.add_frame_origin(tool.store, 1, seen)
    found = platforms.frame_origins(tool.store)
    allowed = {"https://xn--schl-0qa.example"}
    assert stored == (seen in allowed)
    assert all(re.fullmatch(r"https?://[a-z0-9.\-\[\]:]+", one) for one in found)
    assert seen not in found or seen in allowed


def test_many_distinct_origins_stop_at_the_platforms_cap(tool, platform):
    for number in range(platforms.MAX_FRAME_ORIGINS + 10):
        platforms.add_frame_origin(tool.store, 1, f"https://s{number}.example")
    assert len(platforms.frame_origins(tool.store)) <= platforms.MAX_FRAME_ORIGINS


# --- the registration page: framable by the registering origin, so nothing of the session --

def test_the_registration_page_another_origin_may_frame_shows_nothing_of_the_session(tool):
    """Anyone can make /lti/register/ANY?openid_configuration=https://evil.example/ say
    ``frame-ancestors https://evil.example`` (the LMS frames it before it is registered).
    Before, the page was the signed-in base page: the signed-in person's name and the
    "Sign out" form with the session's CSRF token, in a frame of that origin's choosing."""
    link = tool.store.instructor_token()
    with tool.browser(follow_redirects=True) as instructor:
        assert instructor.get(f"{tool.url}/s/{link}").status_code == 200
        page = instructor.get(f"{tool.url}/lti/register/wrong-code",
                              params={"openid_configuration": "https://evil.example/x"})
        assert page.status_code == 400
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors https://evil.example" in policy
        assert 'name="csrf"' not in page.text and "signed in as" not in page.text
        assert "Sign out" not in page.text


@pytest.mark.parametrize("configuration", [
    "https://evil.example;script-src *", "https://evil.example' 'unsafe-inline", "javascript:x",
    "https://évil.example/x", "https://u@evil.example/", "https://*.evil.example/",
    "https://evil.example:99999/"])
def test_a_crafted_openid_configuration_never_writes_the_registration_pages_csp(
        tool, configuration):
    page = httpx.get(f"{tool.url}/lti/register/wrong-code",
                     params={"openid_configuration": configuration})
    policy = page.headers["content-security-policy"]
    assert policy.endswith("frame-ancestors 'none'"), policy


# --- Dynamic Registration: one code, one platform --------------------------------------------

class TwoAtOnce:
    """An HTTP client stub for two registrations that run at the same time with one code:
    both have read their platform's configuration and passed the code's check before either
    registration endpoint answers."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(2, timeout=2)

    def get(self, url: str, **_: Any) -> Any:
        host = url.split("/")[2]
        config = {"issuer": f"https://{host}", "authorization_endpoint": f"https://{host}/auth",
                  "token_endpoint": f"https://{host}/token", "jwks_uri": f"https://{host}/jwks",
                  "registration_endpoint": f"https://{host}/register"}
        return SimpleNamespace(status_code=200, json=lambda: config)

    def post(self, url: str, **_: Any) -> Any:
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:     # the other was refused before it got here
            pass
        host = url.split("/")[2]
        return SimpleNamespace(status_code=200, json=lambda: {"client_id": f"client-{host}",
                                                              "deployment_id": "1"})


def test_one_registration_code_registers_one_platform_even_at_once(tool):
    """Two registrations with the same code at the same time: before, both passed the
    code's check (then spent only at the end of the exchange) and both stored a platform."""
    code = registration.registration_code(tool.store)
    fake = SimpleNamespace(store=tool.store, http=TwoAtOnce(), allow_private=True)
    outcomes: dict[str, Any] = {}

    def attempt(host: str) -> None:
        try:
            outcomes[host] = registration.register(
                fake, code, f"https://{host}/.well-known/openid-configuration", "t",
                tool.url)
        except RegistrationError as problem:
            outcomes[host] = problem

    threads = [threading.Thread(target=attempt, args=(host,))
               for host in ("one.example", "two.example")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    registered = [one for one in outcomes.values() if isinstance(one, platforms.Platform)]
    assert len(registered) == 1, outcomes
    assert len(platforms.platforms(tool.store)) == 1
    assert registration.registration_code(tool.store) != code       # spent by the one


def test_a_failed_registration_gives_its_code_back(tool):
    code = registration.registration_code(tool.store)

    class Refusing(TwoAtOnce):
        def post(self, url: str, **_: Any) -> Any:
            return SimpleNamespace(status_code=403, json=lambda: {"error": "no"})

    fake = SimpleNamespace(store=tool.store, http=Refusing(), allow_private=True)
    with pytest.raises(RegistrationError, match="did not register"):
        registration.register(fake, code, "https://one.example/.well-known/openid-configuration",
                              "t", tool.url)
    assert registration.registration_code(tool.store) == code
    with pytest.raises(RegistrationError, match="no longer"):
        registration.register(fake, "another", "https://one.example/x", "t", tool.url)


@pytest.mark.parametrize("url", [
    "http://127.1/", "http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/",
    "http://[::1]/", "http://[::ffff:7f00:1]/", "http://[::]/", "http://0/",
    "http://[fe80::1%25lo]/", "http://100.64.0.1/", "http://224.0.0.1/",
    "http://lms.example@8.8.8.8/", "http://8.8.8.8%2f@127.0.0.1/",
    "http://8.8.8.8:80\\@127.0.0.1/"])
def test_loopback_and_private_spellings_are_refused_without_the_option(url):
    with pytest.raises(addresses.AddressRefused):
        addresses.check_url(url, "registration_endpoint")

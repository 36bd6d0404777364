"""Dynamic Registration against Canvas and Moodle as their sources say (the test platform's
"canvas" and "moodle" profiles, tests/service/fixtures/), and against a platform that lies:
an issuer with a user name before its host, a private address, a registered platform's URLs
changed. Each refusal leaves the course as it was: no platform stored, the registration code
kept."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from lti_platform import LtiPlatform  # noqa: E402
from lti_tool import ToolServer, launch, refusal  # noqa: E402

from grader.service.lti import addresses, platforms, registration  # noqa: E402
from grader.service.lti.errors import RegistrationError  # noqa: E402

ASSIGNMENT = "https://canvas.instructure.com/lti/assignment_selection"


def register_url(tool: ToolServer) -> str:
    return f"{tool.url}/lti/register/{registration.registration_code(tool.store)}"


def stored(tool: ToolServer) -> list[platforms.Platform]:
    return platforms.platforms(tool.store)


# --- Canvas and Moodle ---------------------------------------------------------------------

def test_canvas_gives_its_deployment_at_the_top_level_and_is_asked_for_a_graded_placement(
        tool):
    with LtiPlatform(profile="canvas") as canvas:
        sent = canvas.register_dynamically(register_url(tool)).sent
        messages = sent["https://purl.imsglobal.org/spec/lti-tool-configuration"]["messages"]
        assert messages[0]["type"] == "LtiResourceLinkRequest"
        assert ASSIGNMENT in messages[0]["placements"]      # not only link_selection
        [platform] = stored(tool)
        assert platform.issuer == canvas.issuer and platform.name == "canvas"
        assert platform.deployment_ids == (canvas.deployment_id,)   # read at the top level
        assert platform.key_set_url == canvas.key_set_url       # Canvas's sso host's path
        launch(canvas, "alan")                  # the instructor's first launch binds it
        page = launch(canvas, "ada")
        assert "signed in as S1815" in page.text


def test_canvas_without_a_deployment_records_the_first_verified_launchs(tool):
    with LtiPlatform(profile="canvas", canvas_deployment=False) as canvas:
        canvas.register_dynamically(register_url(tool))
        [platform] = stored(tool)
        assert platform.deployment_ids == () and platform.awaits_deployment
        with tool.browser() as teacher:
            before = tool.counts()
            forged = launch(canvas, "alan", teacher, tamper="signature")
            assert "signature does not verify" in refusal(forged)
            assert stored(tool)[0].deployment_ids == () and tool.counts() == before
            page = launch(canvas, "alan", teacher)
            assert str(page.url) == tool.url + "/instructor"
            assert stored(tool)[0].deployment_ids == (canvas.deployment_id,)
            lti_page = teacher.get(tool.url + "/instructor/lti").text
            assert canvas.deployment_id in lti_page
        other = launch(canvas, "ada", deployment_id=canvas.deployment_ids[1])
        assert "is not registered with this course" in refusal(other)   # only the first


def test_moodle_gives_its_deployment_in_the_tool_configuration(tool):
    with LtiPlatform(profile="moodle") as moodle:
        page = httpx.get(moodle.dynamic_registration_url(register_url(tool)))
        assert page.status_code == 200, page.text[:400]
        # framed only by the registering platform, not by any site ("frame-ancestors *")
        assert f"frame-ancestors {moodle.url}" in page.headers["content-security-policy"]
        sent = moodle.wait_for_registration().sent
        message = sent["https://purl.imsglobal.org/spec/lti-tool-configuration"]["messages"][0]
        assert "placements" not in message          # Moodle reads only deep linking messages
        [platform] = stored(tool)
        assert platform.deployment_ids == ("3",) and platform.name == "moodle"
        launch(moodle, "alan")                  # the instructor's first launch binds it
        assert "signed in as S1815" in launch(moodle, "ada").text


# --- a platform that lies ------------------------------------------------------------------

class Forger(LtiPlatform):
    """A platform on 127.0.0.1 that says it is another's issuer (and client id)."""

    __test__ = False
    issuer = "http://lms.example"      # type: ignore[assignment]


def test_an_issuer_with_a_user_name_before_the_host_is_refused_and_nothing_changes(tool):
    victim = {"issuer": "http://lms.example", "client_id": "victim-client",
              "deployment_ids": ["1"], "auth_login_url": "http://lms.example/auth",
              "auth_token_url": "http://lms.example/token",
              "key_set_url": "http://lms.example/jwks"}
    path = tool.data / "victim.json"
    path.write_text(json.dumps(victim))
    from grader.service import lti
    lti.register_platform_file(tool.store, tool.data, path, tool.url)
    code = registration.registration_code(tool.store)
    with Forger() as forger:
        forger.client_id = "victim-client"
        token = "reg-forged"
        forger._registration_tokens.add(token)
        disguised = forger.openid_configuration_url.replace("http://", "http://lms.example@")
        page = httpx.get(f"{tool.url}/lti/register/{code}?" + urlencode(
            {"openid_configuration": disguised, "registration_token": token}))
        assert page.status_code == 400 and "user name" in page.text
        assert forger.openid_configuration_fetches == 0 and forger.registrations == []
    [platform] = stored(tool)
    assert (platform.key_set_url, platform.auth_login_url) == ("http://lms.example/jwks",
                                                               "http://lms.example/auth")
    assert registration.registration_code(tool.store) == code           # kept


def test_a_private_address_is_refused_unless_allowed_and_the_code_is_spent_on_success(
        tmp_path):
    server = ToolServer(tmp_path / "course", allow_private=False)
    try:
        code = registration.registration_code(server.store)
        with LtiPlatform(profile="canvas") as canvas:
            page = httpx.get(canvas.dynamic_registration_url(
                f"{server.url}/lti/register/{code}"))
            assert page.status_code == 400
            assert "--lti-allow-private" in page.text and "127.0.0.1" in page.text
            assert canvas.openid_configuration_fetches == 0 and canvas.registrations == []
            assert stored(server) == []
            assert registration.registration_code(server.store) == code     # kept
            framed = page.headers["content-security-policy"]
            assert f"frame-ancestors {canvas.url}" in framed and "*" not in framed
            server.app.state.lti.allow_private = True   # as serve --lti-allow-private
            canvas.register_dynamically(f"{server.url}/lti/register/{code}")
            assert [one.issuer for one in stored(server)] == [canvas.issuer]
            assert registration.registration_code(server.store) != code     # spent
    finally:
        server.stop()


def test_a_name_that_resolves_to_a_private_address_is_refused():
    for url in ("http://localhost:8000/x", "http://169.254.169.254/latest/meta-data",
                "http://10.0.0.7/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/"):
        with pytest.raises(addresses.AddressRefused, match="--lti-allow-private"):
            addresses.check_url(url, "jwks_uri")
        assert addresses.check_url(url, "jwks_uri", allow_private=True) == url
    public = addresses.check_url("https://canvas.example/x", "jwks_uri",
                                 resolve=lambda host: ["93.184.216.34"])
    assert public == "https://canvas.example/x"
    with pytest.raises(addresses.AddressRefused):                # one private answer is enough
        addresses.check_url("https://canvas.example/x", "jwks_uri",
                            resolve=lambda host: ["93.184.216.34", "127.0.0.1"])


class Moving(LtiPlatform):
    """A platform whose key set URL can move (to test that a registration never moves a
    registered platform's)."""

    __test__ = False
    jwks_path = "/jwks"

    @property
    def key_set_url(self) -> str:                     # type: ignore[override]
        return self.url + self.jwks_path


def test_a_registered_platforms_urls_are_never_rewritten(tool):
    with Moving() as lms:
        lms.register_dynamically(register_url(tool))
        [before] = stored(tool)
        lms.jwks_path = "/jwks-of-someone-else"
        code = registration.registration_code(tool.store)
        page = httpx.get(lms.dynamic_registration_url(f"{tool.url}/lti/register/{code}"))
        assert page.status_code == 400 and "registered already" in page.text
        assert stored(tool) == [before]
        assert registration.registration_code(tool.store) == code


def test_add_platform_refuses_other_urls_for_a_registered_issuer_and_client(tool):
    info = platforms.PlatformInfo("https://lms.example", "7", "https://lms.example/auth",
                                  "https://lms.example/token", "https://lms.example/jwks",
                                  ("1",))
    platforms.add_platform(tool.store, info, who=platforms.DYNAMIC)
    moved = platforms.PlatformInfo(info.issuer, "7", info.auth_login_url,
                                   info.auth_token_url, "https://evil.example/jwks", ("2",))
    with pytest.raises(RegistrationError, match="key_set_url"):
        platforms.add_platform(tool.store, moved, who=platforms.DYNAMIC)
    [kept] = stored(tool)
    assert kept.key_set_url == "https://lms.example/jwks" and kept.deployment_ids == ("1",)



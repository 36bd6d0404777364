"""The LTI 1.3 test platform itself (lti_platform.py), against a tiny tool written here.

No grading and no project server: the platform starts, publishes a valid JWKS, signs
id_tokens that verify with it (and spoils them in each way a tool must refuse), checks a
tool's client assertion against the tool's JWKS (served by the tiny tool over HTTP), serves
NRPS and AGS, records every score POST and fails on demand, and takes a Dynamic
Registration. Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import doctest
import json
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

# The test platform's own tests (the stand-in LMS, not the product) run with -m slow: in
# the default run the tool's tests (test_lti_launch, test_lti_course) exercise it whole.
pytestmark = pytest.mark.slow

httpx = pytest.importorskip("httpx")
jwt = pytest.importorskip("jwt")
pytest.importorskip("lti1p3platform")

import lti_platform  # noqa: E402
from browser_helpers import launched_chromium  # noqa: E402
from lti_platform import (CLAIM, CONTEXT_ROLES, MEDIA_SCORE, SCOPE_LINEITEM, SCOPE_NRPS,
                          SCOPE_RESULT_READONLY, SCOPE_SCORE, TAMPERS, TOOL_CONFIGURATION,
                          LtiPlatform, RsaKey)

TIMEOUT = 5.0


class TinyTool:
    """A minimal LTI tool on 127.0.0.1 (http.server in a thread): its own RSA key and JWKS
    (``/jwks``), a login that sends the browser to the platform (``/login``), a launch that
    verifies the id_token as a tool must (``/launch``: 200 "Hello NAME" or 403 and why) and
    a Dynamic Registration page (``/register``)."""

    def __init__(self) -> None:
        self.key = RsaKey.generate()
        self.client_id = ""
        self.platform: LtiPlatform | None = None
        self.states: dict[str, str] = {}       # state: nonce (a real tool keeps it in a cookie)
        self.used_nonces: set[str] = set()
        self.refusals: list[str] = []
        tool = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:   # quiet
                pass

            def do_GET(self) -> None:
                tool.handle(self, dict((k, v[0]) for k, v in
                                       parse_qs(urlsplit(self.path).query).items()))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                form = parse_qs(self.rfile.read(length).decode())
                tool.handle(self, {k: v[0] for k, v in form.items()})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # A short poll: shutdown() waits for it, and every test stops a tool.
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def register_with(self, platform: LtiPlatform) -> None:
        """Registration by hand, as an admin would type it."""
        self.platform = platform
        platform.register_tool(self.url + "/login", [self.url + "/launch"], self.url + "/jwks")
        self.client_id = platform.client_id

    def assertion(self, platform: LtiPlatform, **claims: Any) -> str:
        """A client assertion (RFC 7523) signed with the tool's key."""
        now = int(time.time())
        body = {"iss": self.client_id, "sub": self.client_id, "aud": platform.auth_token_url,
                "iat": now, "exp": now + 300, "jti": str(uuid.uuid4())}
        body.update(claims)
        return self.key.sign(body)

    # -- HTTP ----------------------------------------------------------------------------

    def handle(self, request: BaseHTTPRequestHandler, params: dict[str, str]) -> None:
        path = urlsplit(request.path).path
        if path == "/jwks":
            self.reply(request, 200, json.dumps({"keys": [self.key.jwk]}), "application/json")
        elif path == "/login":
            self.login(request, params)
        elif path == "/launch":
            try:
                self.reply(request, 200, f"Hello {self.launch(params)}")
            except Exception as refusal:   # any failure to verify is a refusal
                self.refusals.append(f"{type(refusal).__name__}: {refusal}")
                self.reply(request, 403, f"refused: {refusal}")
        elif path == "/register":
            self.register(request, params)
        else:
            self.reply(request, 404, "not found")

    @staticmethod
    def reply(request: BaseHTTPRequestHandler, status: int, text: str,
              content_type: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        data = text.encode()
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)

    def login(self, request: BaseHTTPRequestHandler, params: dict[str, str]) -> None:
        assert self.platform is not None
        assert params["iss"] == self.platform.issuer and params["client_id"] == self.client_id
        state, nonce = uuid.uuid4().hex, uuid.uuid4().hex
        self.states[state] = nonce
        query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
                 "prompt": "none", "client_id": self.client_id,
                 "redirect_uri": self.url + "/launch", "login_hint": params["login_hint"],
                 "lti_message_hint": params["lti_message_hint"], "state": state, "nonce": nonce}
        self.reply(request, 302, "", headers={
            "Location": self.platform.auth_login_url + "?" + urlencode(query)})

    def launch(self, form: dict[str, str]) -> str:
        """The user's name and role once the id_token passed every check a tool makes."""
        assert self.platform is not None
        nonce = self.states.pop(form["state"])          # KeyError: unknown or used state
        token = form["id_token"]
        header = jwt.get_unverified_header(token)
        keys = httpx.get(self.platform.key_set_url, timeout=TIMEOUT).json()["keys"]
        jwk = next(key for key in keys if key["kid"] == header.get("kid"))  # StopIteration
        claims = jwt.decode(token, jwt.PyJWK(jwk).key, algorithms=["RS256"],
                            audience=self.client_id, issuer=self.platform.issuer,
                            options={"require": ["exp", "iat", "nonce", "sub"]})
        if claims["nonce"] != nonce or claims["nonce"] in self.used_nonces:
            raise ValueError("nonce is not this launch's")
        self.used_nonces.add(claims["nonce"])
        if claims[CLAIM + "deployment_id"] not in self.platform.deployment_ids:
            raise ValueError("unknown deployment")
        role = "Instructor" if CONTEXT_ROLES["Instructor"] in claims[CLAIM + "roles"] else "Learner"
        return f"{claims['name']} ({role})"

    def register(self, request: BaseHTTPRequestHandler, params: dict[str, str]) -> None:
        """Dynamic Registration, the tool's side: read the platform's configuration, POST
        ours with the registration token, keep the client_id."""
        config = httpx.get(params["openid_configuration"], timeout=TIMEOUT).json()
        body = {
            "application_type": "web", "response_types": ["id_token"],
            "grant_types": ["implicit", "client_credentials"],
            "initiate_login_uri": self.url + "/login", "redirect_uris": [self.url + "/launch"],
            "client_name": "Tiny tool", "jwks_uri": self.url + "/jwks",
            "token_endpoint_auth_method": "private_key_jwt",
            "scope": f"{SCOPE_SCORE} {SCOPE_NRPS}",
            TOOL_CONFIGURATION: {"domain": urlsplit(self.url).netloc,
                                 "target_link_uri": self.url + "/launch",
                                 "claims": ["iss", "sub", "name", "email"],
                                 "messages": [{"type": "LtiResourceLinkRequest"}]},
        }
        answer = httpx.post(config["registration_endpoint"], json=body, timeout=TIMEOUT,
                            headers={"Authorization": f"Bearer {params['registration_token']}"})
        answer.raise_for_status()
        self.client_id = answer.json()["client_id"]
        self.reply(request, 200, "<script>(window.opener || window.parent).postMessage("
                                 "{subject: 'org.imsglobal.lti.close'}, '*')</script>")


@pytest.fixture
def platform() -> Iterator[LtiPlatform]:
    with LtiPlatform() as started:
        yield started


@pytest.fixture
def tool(platform: LtiPlatform) -> Iterator[TinyTool]:
    tiny = TinyTool()
    tiny.register_with(platform)
    yield tiny
    tiny.stop()


def access_token(platform: LtiPlatform, tool: TinyTool, scope: str = SCOPE_SCORE) -> str:
    response = httpx.post(platform.auth_token_url, timeout=TIMEOUT, data={
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": tool.assertion(platform), "scope": scope})
    assert response.status_code == 200, response.text
    return response.json()["access_token"]


def post_score(platform: LtiPlatform, token: str | None, user_id: str, given: float = 87,
               stamp: datetime | None = None, content_type: str = MEDIA_SCORE) -> httpx.Response:
    score = {"userId": user_id, "scoreGiven": given, "scoreMaximum": 100,
             "activityProgress": "Completed", "gradingProgress": "FullyGraded",
             "timestamp": (stamp or datetime.now(timezone.utc)).isoformat()}
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(platform.lineitem_url + "/scores", content=json.dumps(score),
                      headers=headers, timeout=TIMEOUT)


# -- Start, keys, id_tokens ------------------------------------------------------------------

def test_the_docstring_examples_run():
    assert doctest.testmod(lti_platform).failed == 0


def test_it_starts_on_loopback_and_describes_itself(platform: LtiPlatform):
    config = httpx.get(platform.openid_configuration_url, timeout=TIMEOUT).json()
    assert platform.url.startswith("http://127.0.0.1:")
    assert config["issuer"] == platform.issuer
    assert (config["authorization_endpoint"], config["token_endpoint"], config["jwks_uri"]) == (
        platform.auth_login_url, platform.auth_token_url, platform.key_set_url)
    assert config["registration_endpoint"] == platform.registration_url


def test_its_jwks_is_a_valid_public_rsa_key_set(platform: LtiPlatform):
    keys = httpx.get(platform.key_set_url, timeout=TIMEOUT).json()
    key_set = jwt.PyJWKSet.from_dict(keys)
    assert [key.key_id for key in key_set.keys] == [platform.key.kid]
    assert all("d" not in key and key["kty"] == "RSA" and key["alg"] == "RS256"
               for key in keys["keys"])       # public parts only


def test_an_id_token_it_signs_verifies_with_its_jwks(platform: LtiPlatform, tool: TinyTool):
    token = platform.id_token("ada", nonce="n-1")
    jwk = jwt.PyJWKSet.from_dict(httpx.get(platform.key_set_url, timeout=TIMEOUT).json())[
        jwt.get_unverified_header(token)["kid"]]
    claims = jwt.decode(token, jwk.key, algorithms=["RS256"], audience=platform.client_id,
                        issuer=platform.issuer)
    ada = platform.users["ada"]
    assert (claims["sub"], claims["name"], claims["email"], claims["nonce"]) == (
        ada.user_id, "Ada Lovelace", "ada@example.edu", "n-1")
    assert claims[CLAIM + "message_type"] == "LtiResourceLinkRequest"
    assert claims[CLAIM + "version"] == "1.3.0"
    assert claims[CLAIM + "deployment_id"] == platform.deployment_id
    assert CONTEXT_ROLES["Learner"] in claims[CLAIM + "roles"]
    assert claims[CLAIM + "context"]["id"] == platform.context_id
    assert claims[CLAIM + "resource_link"]["id"] == platform.resource_link_id
    ags = claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]
    assert (ags["lineitems"], ags["lineitem"]) == (platform.lineitems_url, platform.lineitem_url)
    nrps = claims["https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"]
    assert nrps["context_memberships_url"] == platform.memberships_url
    assert claims["exp"] > time.time() > claims["iat"] - 5


def test_rotated_keys_sign_with_a_new_kid_both_published(platform: LtiPlatform, tool: TinyTool):
    old = platform.key.kid
    new = platform.rotate_keys().kid
    assert new != old and jwt.get_unverified_header(platform.id_token("ada"))["kid"] == new
    kids = [key["kid"] for key in httpx.get(platform.key_set_url, timeout=TIMEOUT).json()["keys"]]
    assert kids == [old, new]
    platform.rotate_keys(keep_old=False)
    assert len(platform.jwks()["keys"]) == 1


# -- The launch, followed as a browser would -------------------------------------------------

@pytest.mark.parametrize("method", ["get", "post"])
def test_a_launch_ends_on_the_tools_page(platform: LtiPlatform, tool: TinyTool, method: str):
    with httpx.Client(timeout=TIMEOUT) as client:
        page = platform.follow_launch(platform.launch_url("ada", method=method), client)
    assert (page.status_code, page.text) == (200, "Hello Ada Lovelace (Learner)")
    launch = platform.last_launch()
    assert launch.user.key == "ada" and launch.redirect_uri == tool.url + "/launch"


def test_a_platform_on_another_site_than_the_tool(tool: TinyTool):
    with LtiPlatform(url_host="localhost") as elsewhere:
        tool.register_with(elsewhere)
        assert elsewhere.issuer.startswith("http://localhost:")
        with httpx.Client(timeout=TIMEOUT) as client:
            page = elsewhere.follow_launch(elsewhere.launch_url("ada"), client)
        assert page.text == "Hello Ada Lovelace (Learner)"


def test_a_launch_can_change_the_role(platform: LtiPlatform, tool: TinyTool):
    with httpx.Client(timeout=TIMEOUT) as client:
        page = platform.follow_launch(platform.launch_url("grace", role="Instructor"), client)
    assert page.text == "Hello Grace Hopper (Instructor)"


# Why the tiny tool refuses each: the spoiled id_token fails for its own reason.
REFUSALS = {"payload": "InvalidSignatureError", "signature": "InvalidSignatureError",
            "expired": "ExpiredSignatureError", "future": "ImmatureSignatureError",
            "wrong_aud": "InvalidAudienceError", "wrong_iss": "InvalidIssuerError",
            "unknown_kid": "StopIteration", "alg_none": "StopIteration",   # no key of that kid
            "replayed_nonce": "nonce is not this launch's",
            "wrong_deployment": "unknown deployment"}


@pytest.mark.parametrize("tamper", TAMPERS)
def test_each_spoiled_id_token_is_refused_by_a_checking_tool(platform: LtiPlatform,
                                                             tool: TinyTool, tamper: str):
    with httpx.Client(timeout=TIMEOUT) as client:
        if tamper == "replayed_nonce":      # a nonce to replay: an earlier good launch's
            platform.follow_launch(platform.launch_url("ada"), client)
        page = platform.follow_launch(platform.launch_url("ada", tamper=tamper), client)
    assert page.status_code == 403, (tamper, page.text)
    assert REFUSALS[tamper] in tool.refusals[-1]


def test_a_replayed_launch_form_is_refused(platform: LtiPlatform, tool: TinyTool):
    with httpx.Client(timeout=TIMEOUT) as client:
        assert platform.follow_launch(platform.launch_url("ada"), client).status_code == 200
        launch = platform.last_launch()
        again = client.post(launch.redirect_uri,
                            data={"id_token": launch.id_token, "state": launch.state})
    assert again.status_code == 403


def test_the_authorization_endpoint_refuses_an_unregistered_redirect_uri(
        platform: LtiPlatform, tool: TinyTool):
    url = platform.launch_url("ada")
    hint = url.split("/launch/")[1].split("?")[0]
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
             "prompt": "none", "client_id": platform.client_id, "state": "s", "nonce": "n",
             "redirect_uri": "http://127.0.0.1:9/steal", "lti_message_hint": hint,
             "login_hint": platform.users["ada"].user_id}
    answer = httpx.get(platform.auth_login_url, params=query, timeout=TIMEOUT)
    assert answer.status_code == 400 and "redirect_uri" in answer.text
    assert platform.launches == []


# -- Token endpoint --------------------------------------------------------------------------

def test_the_token_endpoint_accepts_a_good_assertion(platform: LtiPlatform, tool: TinyTool):
    token = access_token(platform, tool, scope=f"{SCOPE_SCORE} {SCOPE_NRPS} openid")
    record = platform.token_requests[-1]
    assert record.error is None and record.access_token == token
    assert record.scopes == [SCOPE_SCORE, SCOPE_NRPS]     # what is not granted is dropped


@pytest.mark.parametrize("spoil", ["other_key", "wrong_aud", "wrong_iss", "expired", "no_jti",
                                   "replayed_jti", "grant_type", "assertion_type", "unknown_kid"])
def test_the_token_endpoint_refuses_a_bad_assertion(platform: LtiPlatform, tool: TinyTool,
                                                    spoil: str):
    assertion = tool.assertion(platform)
    form = {"grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "scope": SCOPE_SCORE}
    now = int(time.time())
    if spoil == "other_key":       # right kid, another key's signature
        assertion = RsaKey.generate().sign(jwt.decode(assertion, options={
            "verify_signature": False}), kid=tool.key.kid)
    elif spoil == "wrong_aud":
        assertion = tool.assertion(platform, aud=platform.issuer + "/elsewhere")
    elif spoil == "wrong_iss":
        assertion = tool.assertion(platform, iss="someone", sub="someone")
    elif spoil == "expired":
        assertion = tool.assertion(platform, iat=now - 900, exp=now - 600)
    elif spoil == "no_jti":
        body = jwt.decode(assertion, options={"verify_signature": False})
        del body["jti"]
        assertion = tool.key.sign(body)
    elif spoil == "replayed_jti":
        form["client_assertion"] = assertion
        assert httpx.post(platform.auth_token_url, data=form, timeout=TIMEOUT).status_code == 200
    elif spoil == "grant_type":
        form["grant_type"] = "password"
    elif spoil == "assertion_type":
        form["client_assertion_type"] = "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"
    elif spoil == "unknown_kid":
        assertion = tool.key.sign(jwt.decode(assertion, options={"verify_signature": False}),
                                  kid="not-in-the-tools-jwks")
    form["client_assertion"] = assertion
    answer = httpx.post(platform.auth_token_url, data=form, timeout=TIMEOUT)
    assert answer.status_code in (400, 401), answer.text
    assert "access_token" not in answer.json() and platform.token_requests[-1].error


def test_a_rotated_tool_key_is_fetched_at_once(platform: LtiPlatform, tool: TinyTool):
    access_token(platform, tool)
    tool.key = RsaKey.generate()        # the tool's JWKS now has only the new key
    access_token(platform, tool)


def test_expired_access_tokens_are_refused(platform: LtiPlatform, tool: TinyTool):
    token = access_token(platform, tool)
    platform.expire_tokens()
    answer = post_score(platform, token, platform.users["ada"].user_id)
    assert answer.status_code == 401 and "expired" in answer.json()["error_description"]


# -- NRPS and AGS ----------------------------------------------------------------------------

def test_memberships_list_the_course_with_who_left_and_the_test_student(
        platform: LtiPlatform, tool: TinyTool):
    headers = {"Authorization": f"Bearer {access_token(platform, tool, SCOPE_NRPS)}",
               "Accept": "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"}
    answer = httpx.get(platform.memberships_url, headers=headers, timeout=TIMEOUT)
    assert answer.headers["content-type"].startswith(
        "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
    body = answer.json()
    assert body["context"]["id"] == platform.context_id
    members = {member["name"]: member for member in body["members"]}
    assert members["Claude Shannon"]["status"] == "Inactive"
    assert "lis_person_sourcedid" not in members["Test Student"]
    assert members["Barbara Liskov"]["roles"] == [CONTEXT_ROLES["TeachingAssistant"]]
    assert members["Alan Turing"]["roles"] == [CONTEXT_ROLES["Instructor"]]

    pages, url = [], platform.memberships_url + "?limit=4"
    while url:
        page = httpx.get(url, headers=headers, timeout=TIMEOUT)
        pages.append(page.json()["members"])
        url = page.links.get("next", {}).get("url")
    assert [len(page) for page in pages] == [4, 2]
    learners = httpx.get(platform.memberships_url + "?role=Learner", headers=headers,
                         timeout=TIMEOUT).json()["members"]
    assert {member["name"] for member in learners} == {
        "Ada Lovelace", "Grace Hopper", "Claude Shannon", "Test Student"}


def test_memberships_need_a_token_with_the_nrps_scope(platform: LtiPlatform, tool: TinyTool):
    assert httpx.get(platform.memberships_url, timeout=TIMEOUT).status_code == 401
    score_only = access_token(platform, tool, SCOPE_SCORE)
    answer = httpx.get(platform.memberships_url, timeout=TIMEOUT,
                       headers={"Authorization": f"Bearer {score_only}"})
    assert answer.status_code == 403


def test_the_scores_endpoint_records_every_post(platform: LtiPlatform, tool: TinyTool):
    token = access_token(platform, tool)
    ada = platform.users["ada"].user_id
    assert post_score(platform, token, ada, 87).status_code == 200
    assert post_score(platform, None, ada).status_code == 401
    assert post_score(platform, token, ada, content_type="application/json").status_code == 415
    assert post_score(platform, token, "nobody").status_code == 422
    earlier = datetime.now(timezone.utc) - timedelta(hours=1)
    assert post_score(platform, token, ada, 10, stamp=earlier).status_code == 409
    statuses = [score.status for score in platform.received_scores]
    assert statuses == [200, 401, 415, 422, 409]
    first = platform.received_scores[0]
    assert first.token == token and first.authorization == f"Bearer {token}"
    assert first.body["scoreGiven"] == 87 and first.body["userId"] == ada
    assert [score.body["scoreGiven"] for score in platform.wait_for_scores(1)] == [87]
    reader = access_token(platform, tool, SCOPE_RESULT_READONLY)
    results = httpx.get(platform.lineitem_url + "/results", timeout=TIMEOUT,
                        headers={"Authorization": f"Bearer {reader}"})
    assert [(r["userId"], r["resultScore"]) for r in results.json()] == [(ada, 87)]


def test_the_scores_endpoint_fails_on_demand(platform: LtiPlatform, tool: TinyTool):
    token = access_token(platform, tool)
    ada = platform.users["ada"].user_id
    platform.scores_down(times=2)
    assert [post_score(platform, token, ada).status_code for _ in range(3)] == [503, 503, 200]
    platform.scores_refuse()
    assert post_score(platform, token, ada).status_code == 403
    platform.restore()
    assert post_score(platform, token, ada).status_code == 200
    assert [score.status for score in platform.received_scores] == [503, 503, 200, 403, 200]
    assert len(platform.accepted_scores()) == 2


def test_line_items_can_be_listed_and_created(platform: LtiPlatform, tool: TinyTool):
    headers = {"Authorization": f"Bearer {access_token(platform, tool, SCOPE_LINEITEM)}"}
    listed = httpx.get(platform.lineitems_url, headers=headers, timeout=TIMEOUT).json()
    assert [item["id"] for item in listed] == [platform.lineitem_url]
    made = httpx.post(platform.lineitems_url, headers=headers, timeout=TIMEOUT,
                      json={"label": "Bonus", "scoreMaximum": 10, "tag": "bonus"})
    assert made.status_code == 201 and made.json()["tag"] == "bonus"
    tagged = httpx.get(platform.lineitems_url, params={"tag": "bonus"}, headers=headers,
                       timeout=TIMEOUT).json()
    assert [item["label"] for item in tagged] == ["Bonus"]


# -- Dynamic Registration --------------------------------------------------------------------

def test_dynamic_registration_as_an_lms_drives_it(platform: LtiPlatform):
    tiny = TinyTool()
    try:
        registration = platform.register_dynamically(tiny.url + "/register")
        assert platform.openid_configuration_fetches == 1
        assert registration.client_id == tiny.client_id == platform.client_id
        assert registration.jwks_url == tiny.url + "/jwks"
        assert registration.login_url == tiny.url + "/login"
        assert registration.scopes == [SCOPE_SCORE, SCOPE_NRPS]
        assert registration.sent["client_name"] == "Tiny tool"
        tiny.platform = platform
        with httpx.Client(timeout=TIMEOUT) as client:
            page = platform.follow_launch(platform.launch_url("alan"), client)
        assert page.text == "Hello Alan Turing (Instructor)"
    finally:
        tiny.stop()


def test_a_registration_without_its_token_is_refused(platform: LtiPlatform):
    answer = httpx.post(platform.registration_url, json={"application_type": "web"},
                        timeout=TIMEOUT)
    assert answer.status_code == 401 and platform.registrations == []
    url = platform.dynamic_registration_url("http://127.0.0.1:9/register")
    token = parse_qs(urlsplit(url).query)["registration_token"][0]
    answer = httpx.post(platform.registration_url, json={"application_type": "web"},
                        headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
    assert answer.status_code == 400 and "response_types" in answer.json()["error_description"]


# -- In Chromium -----------------------------------------------------------------------------

def test_chromium_follows_the_auto_posted_launch(platform: LtiPlatform, tool: TinyTool):
    with launched_chromium() as browser:
        page = browser.new_page()
        page.goto(platform.launch_url("ada", method="post"), timeout=30_000)
        page.wait_for_url(tool.url + "/launch", timeout=30_000)
        assert "Hello Ada Lovelace (Learner)" in page.content()

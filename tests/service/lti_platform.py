"""An LTI 1.3 platform (an LMS stand-in) for the tests: real RSA keys, real HTTP on 127.0.0.1.

The tool (grader/service/lti/) is tested against a platform the project did not write
where one exists: the launch message (its claims, the OIDC login initiation's query,
the check of the tool's authentication request) is built and the id_token signed by
``lti1p3platform`` from PyPI (PyJWT + jwcrypto, another JWT stack than the tool's). That
package has no HTTP server for Starlette, no Dynamic Registration, and a token endpoint
that does not check the assertion's ``aud``, ``jti`` or a rotated tool key; those parts are
written here from the IMS specifications (LTI 1.3 core, Security Framework 1.0, NRPS 2.0,
AGS 2.0, Dynamic Registration 1.0) with PyJWT and served by Starlette/uvicorn in a thread.

A student's launch, as a browser follows it::

    platform = LtiPlatform().start()
    platform.register_tool(login_url="http://127.0.0.1:8000/lti/login",
                           redirect_uris=["http://127.0.0.1:8000/lti/launch"],
                           jwks_url="http://127.0.0.1:8000/lti/jwks")
    page.goto(platform.launch_url("ada"))          # Chromium ends on Ada's page
    platform.wait_for_scores(1)[0].body["scoreGiven"]
    platform.stop()

The platform's side of the flow: ``launch_url`` is the LMS's link; it sends the browser to
the tool's login URL (third-party initiated login, GET or an auto-posted form); the tool
redirects the browser to ``auth_login_url`` with state and nonce; the platform answers
with a page that auto-POSTs ``id_token`` and ``state`` to the tool's redirect URI.
"""

from __future__ import annotations

import base64
import html
import json
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlencode, urljoin

import httpx
import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

# -- Vocabulary of the specifications --------------------------------------------------------

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
# Context roles as Canvas sends them (a TA is a sub-role of Instructor).
CONTEXT_ROLES = {
    "Learner": LIS + "membership#Learner",
    "Instructor": LIS + "membership#Instructor",
    "TeachingAssistant": LIS + "membership/Instructor#TeachingAssistant",
    "ContentDeveloper": LIS + "membership#ContentDeveloper",
    "Administrator": LIS + "membership#Administrator",
}
# The institution roles Canvas adds to a launch beside the context roles: a tool must decide
# on the context role (a TA is often an institution Student).
INSTITUTION_ROLES = {
    "Learner": LIS + "institution/person#Student",
    "Instructor": LIS + "institution/person#Instructor",
    "TeachingAssistant": LIS + "institution/person#Student",
}
SYSTEM_USER = LIS + "system/person#User"

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_RESULT_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
ALL_SCOPES = (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY, SCOPE_SCORE,
              SCOPE_NRPS)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

MEDIA_SCORE = "application/vnd.ims.lis.v1.score+json"
MEDIA_LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
MEDIA_LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEDIA_RESULTS = "application/vnd.ims.lis.v2.resultcontainer+json"
MEDIA_MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

ACTIVITY_PROGRESS = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING_PROGRESS = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}

DEFAULT_DEPLOYMENTS = ("1:deployment-ttt", "2:deployment-other")
# The LMSs the platform can play besides its own default shapes (tests/service/fixtures/).
PROFILES = ("default", "canvas", "moodle")
FIXTURES = Path(__file__).parent / "fixtures"
CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission"


def load_fixture(profile: str, name: str) -> dict[str, Any]:
    """tests/service/fixtures/PROFILE/NAME.json, without its ``_source`` (which names the
    Canvas or Moodle file it was transcribed from).

    >>> load_fixture("canvas", "openid_configuration")["issuer"]
    'https://canvas.instructure.com'
    """
    data = json.loads((FIXTURES / profile / f"{name}.json").read_text(encoding="utf-8"))
    data.pop("_source", None)
    return data


# What ``launch_url(..., tamper=...)`` can do to the id_token (the tool must refuse each).
TAMPERS = ("payload", "signature", "expired", "future", "wrong_aud", "wrong_iss", "unknown_kid",
           "replayed_nonce", "wrong_deployment", "alg_none")


# -- Keys ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RsaKey:
    """An RSA key pair in PEM, and its public JWK (``kid`` is its RFC 7638 thumbprint).

    >>> key = RsaKey.generate()
    >>> key.jwk["kty"], key.jwk["alg"], key.jwk["kid"] == key.kid
    ('RSA', 'RS256', True)
    """

    private_pem: str
    public_pem: str
    jwk: dict[str, Any]

    @property
    def kid(self) -> str:
        return self.jwk["kid"]

    @classmethod
    def generate(cls) -> "RsaKey":
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        private_pem = private.private_bytes(serialization.Encoding.PEM,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()).decode()
        public_pem = private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        # lti1p3platform signs with the thumbprint as kid: its JWK is the one we publish.
        return cls(private_pem, public_pem, Registration.get_jwk(public_pem))

    def sign(self, claims: dict[str, Any], kid: str | None = None) -> str:
        """A JWT signed RS256 with this key (``kid`` in the header, this key's by default)."""
        return jwt.encode(claims, self.private_pem, algorithm="RS256",
                          headers={"kid": kid or self.kid})


# -- The course ------------------------------------------------------------------------------

@dataclass
class User:
    """A person of the course, as the LMS knows them.

    ``roles`` are context roles by short name (CONTEXT_ROLES); ``sourcedid`` is the SIS id
    (None for Canvas's Test Student); ``status`` is NRPS's Active or Inactive (left).

    >>> User("ada", "u-ada", "Ada Lovelace", "ada@example.edu", ["Learner"]).role_uris()
    ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner']
    """

    key: str
    user_id: str
    name: str
    email: str | None
    roles: list[str]
    status: str = "Active"
    sourcedid: str | None = None
    given_name: str = ""
    family_name: str = ""

    def __post_init__(self) -> None:
        if not self.given_name and not self.family_name and " " in self.name:
            self.given_name, self.family_name = self.name.split(" ", 1)

    def role_uris(self, roles: Iterable[str] | None = None) -> list[str]:
        return [CONTEXT_ROLES.get(role, role) for role in (self.roles if roles is None else roles)]

    def member(self) -> dict[str, Any]:
        """The user as NRPS 2.0 lists them in a membership container."""
        member: dict[str, Any] = {"status": self.status, "user_id": self.user_id,
                                  "name": self.name, "given_name": self.given_name,
                                  "family_name": self.family_name, "roles": self.role_uris()}
        if self.email:
            member["email"] = self.email
        if self.sourcedid:
            member["lis_person_sourcedid"] = self.sourcedid
        return member


def default_users() -> list[User]:
    """The course's people: two students, an instructor, a TA, a student who left (Inactive)
    and Canvas's Test Student (no SIS id, no email)."""
    return [
        User("ada", "lms-user-ada-1815", "Ada Lovelace", "ada@example.edu", ["Learner"],
             sourcedid="S1815"),
        User("grace", "lms-user-grace-1906", "Grace Hopper", "grace@example.edu", ["Learner"],
             sourcedid="S1906"),
        User("alan", "lms-user-alan-1912", "Alan Turing", "alan@example.edu", ["Instructor"],
             sourcedid="T1912"),
        User("barbara", "lms-user-barbara-1939", "Barbara Liskov", "barbara@example.edu",
             ["TeachingAssistant"], sourcedid="S1939"),
        User("claude", "lms-user-claude-1916", "Claude Shannon", "claude@example.edu",
             ["Learner"], status="Inactive", sourcedid="S1916"),
        User("test", "lms-user-test-student-0f3a", "Test Student", None, ["Learner"],
             given_name="Test", family_name="Student"),
    ]


@dataclass
class ToolRegistration:
    """A tool as the platform registered it (by hand or by Dynamic Registration).

    ``sent`` is the registration request's JSON as the tool sent it (Dynamic Registration).
    """

    client_id: str
    deployment_id: str
    login_url: str
    redirect_uris: list[str]
    jwks_url: str
    target_link_uri: str
    scopes: list[str]
    sent: dict[str, Any] | None = None


@dataclass
class Launch:
    """One launch: what the LMS link asked for, then what the flow carried."""

    hint: str                     # lti_message_hint: the platform's key of this launch
    user: User
    roles: list[str]              # context role URIs sent in the id_token
    deployment_id: str
    resource_link_id: str
    target_link_uri: str
    tamper: str | None
    custom: dict[str, str]
    extra_claims: dict[str, Any]
    state: str | None = None      # from the tool's authentication request
    nonce: str | None = None
    redirect_uri: str | None = None
    id_token: str | None = None   # as posted to the tool
    claims: dict[str, Any] | None = None


@dataclass
class ScoreRecord:
    """One POST to a scores endpoint, whatever the platform answered (``status``)."""

    line_item_id: str
    body: Any
    authorization: str | None     # the request's Authorization header, as sent
    token: str | None             # the bearer token in it
    content_type: str
    status: int
    reason: str
    received_at: float


@dataclass
class TokenRecord:
    """One request to the token endpoint: its form, and the answer (``error`` None: issued)."""

    form: dict[str, str]
    status: int
    error: str | None
    description: str
    access_token: str | None = None
    scopes: list[str] = field(default_factory=list)


@dataclass
class IssuedToken:
    client_id: str
    scopes: list[str]
    expires_at: float


class LtiError(Exception):
    """A refusal: the HTTP status and an OAuth-style error code and description."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(f"{status} {error}: {description}")
        self.status, self.error, self.description = status, error, description


# -- lti1p3platform glue ----------------------------------------------------------------------

class _Config(LTI1P3PlatformConfAbstract):
    """lti1p3platform's platform configuration: it only hands out one Registration."""

    def init_platform_config(self, registration: Registration) -> None:  # type: ignore[override]
        self._registration = registration

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        assert self._registration is not None
        return self._registration


class _LoginInitiation(OIDCLoginAbstract):
    """Builds the third-party initiated login URL (iss, login_hint, target_link_uri,
    lti_message_hint, client_id, lti_deployment_id)."""

    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class _MessageLaunch(LTIAdvantageMessageLaunchAbstract):
    """Builds and signs the LtiResourceLinkRequest from the tool's authentication request."""

    def __init__(self, params: dict[str, str], config: _Config) -> None:
        super().__init__(None, config)  # type: ignore[arg-type]
        self._params = params
        self._registration = config.get_registration()

    def get_preflight_response(self) -> dict[str, Any]:
        return self._params

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        return autopost_page(launch_data["launch_url"],
                             {"id_token": launch_data["id_token"], "state": launch_data["state"]})


def autopost_page(action: str, fields: dict[str, str], title: str = "LTI launch") -> str:
    """An HTML page whose form POSTs ``fields`` to ``action`` as soon as it loads (the way an
    LMS hands a browser from one site to the other). Values are escaped: the tool chose state.

    >>> 'name="state" value="a&quot;b"' in autopost_page("http://t/launch", {"state": 'a"b'})
    True
    """
    inputs = "\n".join(f'    <input type="hidden" name="{html.escape(name)}" '
                       f'value="{html.escape(value)}">' for name, value in fields.items())
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title></head>\n<body>\n  <form id=\"lti-autopost\" method=\"post\" "
            f"action=\"{html.escape(action)}\">\n{inputs}\n"
            f"    <noscript><button type=\"submit\">Continue</button></noscript>\n  </form>\n"
            f"  <script>document.getElementById('lti-autopost').submit();</script>\n"
            f"</body></html>\n")


def parse_autopost(page: str) -> tuple[str, dict[str, str]] | None:
    """The action and fields of a page made by :func:`autopost_page` (None: not one).

    >>> parse_autopost(autopost_page("http://t/launch", {"id_token": "x.y.z", "state": "s"}))
    ('http://t/launch', {'id_token': 'x.y.z', 'state': 's'})
    """
    form = re.search(r'<form id="lti-autopost" method="post" action="([^"]*)">', page)
    if not form:
        return None
    fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page)
    return html.unescape(form.group(1)), {html.unescape(n): html.unescape(v) for n, v in fields}


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


# -- The platform ----------------------------------------------------------------------------

class LtiPlatform:
    """An LTI 1.3 platform on 127.0.0.1 (a free port), served by uvicorn in a thread.

    Its URLs: ``issuer`` (the base URL), ``auth_login_url``, ``auth_token_url``,
    ``key_set_url``, ``openid_configuration_url``, ``registration_url``; the course's
    ``memberships_url``, ``lineitems_url`` and ``lineitem_url`` (one line item, 100 points).
    What it received: ``launches``, ``received_scores``, ``token_requests``,
    ``registrations``, ``service_requests``, ``access_tokens`` (issued), ``results``.

    >>> platform = LtiPlatform().start()
    >>> httpx.get(platform.key_set_url).json()["keys"][0]["kid"] == platform.key.kid
    True
    >>> platform.stop()
    """

    __test__ = False   # a helper, not a pytest class

    def __init__(self, users: list[User] | None = None, *, context_id: str = "course-ttt-101",
                 context_title: str = "Tic-Tac-Toe Minimax", context_label: str = "TTT101",
                 resource_link_id: str = "rl-minimax-handin",
                 deployment_ids: tuple[str, ...] = DEFAULT_DEPLOYMENTS,
                 token_lifetime: int = 3600, url_host: str = "127.0.0.1",
                 profile: str = "default", canvas_deployment: bool = True,
                 canvas_attempts: int | None = None) -> None:
        """``url_host`` is the host name in the platform's URLs (it always listens on
        127.0.0.1): "localhost" makes it another site than a tool at 127.0.0.1, as a real LMS
        is, so that a browser applies SameSite to the tool's cookies as in production.

        ``profile`` "canvas" or "moodle" plays that LMS from tests/service/fixtures/ (see
        :class:`Profile`): its URLs, openid-configuration, registration reply, launch roles
        and claims, NRPS paging and score answers. ``canvas_deployment`` False: Canvas's
        registration reply has no deployment_id (the tool is not installed yet);
        ``canvas_attempts``: the assignment allows that many attempts (a score that is a new
        submission after them is answered 422, as Canvas does)."""
        if profile not in PROFILES:
            raise ValueError(f"profile is one of {PROFILES}, not {profile!r}")
        self.profile = profile
        if profile != "default" and tuple(deployment_ids) == DEFAULT_DEPLOYMENTS:
            shape = load_fixture(profile, "launch_claims")["deployment_id_shape"]
            deployment_ids = (shape, shape + "0")
        self.canvas_deployment = canvas_deployment
        self.canvas_attempts = canvas_attempts
        self.attempts: dict[tuple[str, str], int] = {}   # (line item, userId): submissions
        self.client_id = "ttt-client-" + secrets.token_hex(4)
        self.deployment_ids = list(deployment_ids)
        self.users = {user.key: user for user in (users or default_users())}
        self.context_id, self.context_title, self.context_label = (
            context_id, context_title, context_label)
        self.resource_link_id = resource_link_id
        self.token_lifetime = token_lifetime
        self.keys = [RsaKey.generate()]        # published; the last one signs
        self.tool: ToolRegistration | None = None

        self.launches: list[Launch] = []
        self.received_scores: list[ScoreRecord] = []
        self.token_requests: list[TokenRecord] = []
        self.registrations: list[ToolRegistration] = []
        self.service_requests: list[tuple[str, str, int]] = []   # (method, path, status)
        self.openid_configuration_fetches = 0
        self.line_items: dict[str, dict[str, Any]] = {}
        self.results: dict[tuple[str, str], dict[str, Any]] = {}  # (line item, userId): score
        self.access_tokens: dict[str, IssuedToken] = {}   # issued by the token endpoint

        self._lock = threading.Lock()
        self._pending: dict[str, Launch] = {}
        self._used_jti: set[str] = set()
        self._registration_tokens: set[str] = set()
        self._failures: dict[str, tuple[int, int | None, str]] = {}  # endpoint: (status, times, body)
        self._line_item_counter = 0

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))   # the URL is known before the server runs
        self.url = f"http://{url_host}:{self._socket.getsockname()[1]}"
        # Canvas serves its services and registration on the school's domain, another host
        # than its issuer's: here "localhost", the same server under another name.
        self.school_url = (f"http://localhost:{self._socket.getsockname()[1]}"
                           if profile == "canvas" else self.url)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.add_line_item("Minimax hand-in", 100, resource_link_id=resource_link_id,
                           tag="grade", resource_id="minimax")

    # -- URLs ----------------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.url

    @property
    def deployment_id(self) -> str:
        return self.deployment_ids[0]

    @property
    def key(self) -> RsaKey:
        """The key that signs now."""
        return self.keys[-1]

    @property
    def auth_login_url(self) -> str:
        return self._profile_url("auth_login_url") or self.url + "/auth"

    @property
    def auth_token_url(self) -> str:
        return self._profile_url("auth_token_url") or self.url + "/token"

    @property
    def key_set_url(self) -> str:
        return self._profile_url("key_set_url") or self.url + "/jwks"

    @property
    def openid_configuration_url(self) -> str:
        return self._profile_url("openid_configuration_url") or \
            self.url + "/.well-known/openid-configuration"

    @property
    def registration_url(self) -> str:
        return self._profile_url("registration_url") or self.url + "/register"

    @property
    def memberships_url(self) -> str:
        return self._profile_url("context_memberships_url") or \
            f"{self.url}/api/courses/{self.context_id}/memberships"

    @property
    def lineitems_url(self) -> str:
        return self._profile_url("lineitems") or \
            f"{self.url}/api/courses/{self.context_id}/line_items"

    @property
    def lineitem_url(self) -> str:
        """The URL of the course's first line item (the one in the launch's AGS claim)."""
        return next(iter(self.line_items.values()))["id"]

    # -- Life ----------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> "LtiPlatform":
        """Serves the platform; returns when it answers."""
        tls = self.__dict__.get("_tls") or (None, None)     # serve_tls
        config = uvicorn.Config(self._app(), log_level="warning", lifespan="off",
                                access_log=False, ssl_certfile=tls[0], ssl_keyfile=tls[1])
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._socket]},
                                        name="lti-platform", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the LTI test platform did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> "LtiPlatform":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- Registration --------------------------------------------------------------------

    def register_tool(self, login_url: str, redirect_uris: str | list[str], jwks_url: str,
                      target_link_uri: str | None = None,
                      scopes: Iterable[str] = ALL_SCOPES) -> ToolRegistration:
        """Registers the tool by hand, as an admin types it into the LMS (replacing any other).

        ``target_link_uri`` (what the link launches) is the first redirect URI by default.
        """
        uris = [redirect_uris] if isinstance(redirect_uris, str) else list(redirect_uris)
        self.tool = ToolRegistration(self.client_id, self.deployment_id, login_url, uris,
                                     jwks_url, target_link_uri or uris[0], list(scopes))
        return self.tool

    def dynamic_registration_url(self, tool_registration_url: str) -> str:
        """What the LMS opens (in an iframe) when an admin pastes the tool's registration URL:
        that URL with ``openid_configuration`` and a new one-time ``registration_token``."""
        token = "reg-" + secrets.token_urlsafe(16)
        self._registration_tokens.add(token)
        query = urlencode({"openid_configuration": self.openid_configuration_url,
                           "registration_token": token})
        return tool_registration_url + ("&" if "?" in tool_registration_url else "?") + query

    def register_dynamically(self, tool_registration_url: str,
                             client: httpx.Client | None = None,
                             timeout: float = 10.0) -> ToolRegistration:
        """Drives Dynamic Registration as Canvas and Moodle do, without a browser: opens the
        tool's registration URL with the two query parameters, and returns the registration
        the tool then POSTed to ``registration_url`` (AssertionError if it did not).

        A tool whose registration page wants a click is driven in Chromium instead: open
        ``dynamic_registration_url(...)``, click, then ``wait_for_registration()``.
        """
        before = len(self.registrations)
        url = self.dynamic_registration_url(tool_registration_url)
        own = client is None
        client = client or httpx.Client(timeout=timeout, follow_redirects=True)
        try:
            response = client.get(url)
        finally:
            if own:
                client.close()
        assert response.status_code < 400, (
            f"the tool's registration page answered {response.status_code}: {response.text[:500]}")
        return self.wait_for_registration(before + 1, timeout=timeout)

    def admin_registration_url(self, tool_registration_url: str) -> str:
        """The LMS administrator's page that registers a tool: ``tool_registration_url``
        (with the two query parameters) in a frame of the LMS's own page, as Canvas's
        developer keys page and Moodle's "Manage tools" do; the page shows "closed" when the
        tool's page posts ``org.imsglobal.lti.close`` (Dynamic Registration's end).

            page.goto(platform.admin_registration_url(tool_url))
            page.wait_for_selector("#closed:has-text('closed')")
        """
        return f"{self.url}/admin/registration?" + urlencode(
            {"url": self.dynamic_registration_url(tool_registration_url)})

    def wait_for_registration(self, count: int = 1, timeout: float = 10.0) -> ToolRegistration:
        """The latest registration once ``count`` have arrived."""
        _wait(lambda: len(self.registrations) >= count, timeout,
              f"no Dynamic Registration from the tool ({len(self.registrations)} of {count})")
        return self.registrations[-1]

    # -- Users and keys ------------------------------------------------------------------

    def add_user(self, key: str, name: str, email: str | None = None,
                 roles: Iterable[str] = ("Learner",), status: str = "Active",
                 sourcedid: str | None = None) -> User:
        """Enrolls someone more (``status="Inactive"``: they left)."""
        user = User(key, f"lms-user-{key}-{secrets.token_hex(3)}", name, email, list(roles),
                    status=status, sourcedid=sourcedid)
        self.users[key] = user
        return user

    def rotate_keys(self, keep_old: bool = True) -> RsaKey:
        """A new signing key (a new kid the tool must fetch from ``key_set_url``); the old
        ones stay published unless ``keep_old`` is False, as LMSes roll keys over."""
        new = RsaKey.generate()
        self.keys = (self.keys if keep_old else []) + [new]
        return new

    def expire_tokens(self) -> None:
        """Every access token issued so far expires now (the tool must get a new one)."""
        for issued in self.access_tokens.values():
            issued.expires_at = time.time() - 1

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(key.jwk) for key in self.keys]}

    # -- Launches ------------------------------------------------------------------------

    def launch_url(self, user: str | User, role: str | list[str] | None = None, *,
                   method: str = "get", deployment_id: str | None = None,
                   resource_link_id: str | None = None, target_link_uri: str | None = None,
                   tamper: str | None = None, custom: dict[str, str] | None = None,
                   extra_claims: dict[str, Any] | None = None) -> str:
        """The LMS's link that launches the tool as ``user`` (a key of ``users``): the URL a
        browser opens. It goes on to the tool's login URL (GET redirect, or ``method="post"``:
        an auto-posted form as Canvas does), and ends with the id_token posted to the tool.

        ``role`` replaces the user's roles (a short name or a list: "Learner", "Instructor",
        "TeachingAssistant", or full URIs). ``tamper`` (one of TAMPERS) spoils the id_token in
        one way the tool must refuse. ``extra_claims`` are added to (or replace) the claims.
        """
        if tamper is not None and tamper not in TAMPERS:
            raise ValueError(f"tamper is one of {TAMPERS}, not {tamper!r}")
        if method not in ("get", "post"):
            raise ValueError("method is 'get' or 'post'")
        tool = self._tool()
        person = user if isinstance(user, User) else self.users[user]
        roles = person.role_uris([role] if isinstance(role, str) else role)
        launch = Launch(hint="launch-" + secrets.token_urlsafe(12), user=person, roles=roles,
                        deployment_id=deployment_id or self.deployment_id,
                        resource_link_id=resource_link_id or self.resource_link_id,
                        target_link_uri=target_link_uri or tool.target_link_uri,
                        tamper=tamper, custom=dict(custom or {}),
                        extra_claims=dict(extra_claims or {}))
        with self._lock:
            self._pending[launch.hint] = launch
        return f"{self.url}/launch/{launch.hint}?method={method}"

    def login_initiation_url(self, launch: Launch) -> str:
        """The tool's login URL with the third-party initiated login's query (by
        lti1p3platform: iss, target_link_uri, login_hint, lti_message_hint, client_id,
        lti_deployment_id)."""
        registration = self._registration(launch.deployment_id, launch.target_link_uri)
        login = _LoginInitiation(None, _Config(registration=registration))
        login.set_lti_message_hint(hint=launch.hint)
        login.set_launch_url(launch.target_link_uri)
        return login.initiate_login(launch.user.user_id)

    def follow_launch(self, url: str, client: httpx.Client, max_steps: int = 12) -> httpx.Response:
        """Follows a launch as a browser without JavaScript would (redirects, and this
        platform's auto-posted forms), with ``client`` keeping the tool's cookies; returns the
        last response (the tool's page after the launch).

        Example (with a tool registered)::

            with httpx.Client() as client:
                page = platform.follow_launch(platform.launch_url("ada"), client)
            assert page.status_code == 200
        """
        response = client.get(url)
        for _ in range(max_steps):
            if response.is_redirect:
                target = urljoin(str(response.url), response.headers["location"])
                response = client.get(target)
                continue
            form = parse_autopost(response.text) if response.status_code == 200 else None
            if form is None:
                return response
            action, fields = form
            response = client.post(urljoin(str(response.url), action), data=fields)
        raise AssertionError(f"the launch did not end in {max_steps} steps: {response.url}")

    def last_launch(self) -> Launch:
        """The latest launch whose id_token was posted (to replay it, post
        ``{"id_token": launch.id_token, "state": launch.state}`` to ``launch.redirect_uri``)."""
        done = [launch for launch in self.launches if launch.id_token]
        assert done, "no launch reached the platform's authorization endpoint"
        return done[-1]

    def id_token(self, user: str | User, nonce: str = "nonce-by-hand",
                 tamper: str | None = None, **claims: Any) -> str:
        """An id_token for ``user`` built and signed as in a launch, without the flow (for
        tests that post it by hand); ``claims`` replace top-level claims."""
        person = user if isinstance(user, User) else self.users[user]
        tool = self._tool()
        launch = Launch(hint="by-hand", user=person, roles=person.role_uris(),
                        deployment_id=self.deployment_id, resource_link_id=self.resource_link_id,
                        target_link_uri=tool.target_link_uri, tamper=tamper, custom={},
                        extra_claims=claims)
        params = {"nonce": nonce, "state": "by-hand", "redirect_uri": tool.redirect_uris[0],
                  "client_id": tool.client_id}
        token, _ = self._sign_launch(launch, params)
        return token

    # -- Scores and failures -------------------------------------------------------------

    def fail(self, endpoint: str, status: int = 503, times: int | None = None,
             body: str = "Service Unavailable") -> None:
        """The next ``times`` requests (None: all, until ``restore``) to ``endpoint``
        ("scores", "token", "memberships" or "lineitems") are answered ``status``."""
        if endpoint not in ("scores", "token", "memberships", "lineitems"):
            raise ValueError(f"unknown endpoint {endpoint!r}")
        with self._lock:
            self._failures[endpoint] = (status, times, body)

    def scores_down(self, times: int | None = None) -> None:
        """The scores endpoint answers 503 (the LMS is down)."""
        self.fail("scores", 503, times)

    def scores_refuse(self, status: int = 403, times: int | None = None) -> None:
        """The scores endpoint refuses (403 by default: the LMS will not take this score)."""
        self.fail("scores", status, times, body='{"errors": [{"message": "refused"}]}')

    def restore(self, endpoint: str | None = None) -> None:
        """Ends the failures of ``endpoint`` (all by default)."""
        with self._lock:
            if endpoint is None:
                self._failures.clear()
            else:
                self._failures.pop(endpoint, None)

    def accepted_scores(self) -> list[ScoreRecord]:
        return [score for score in self.received_scores if score.status == 200]

    def only_score_for(self, who: str, timeout: float = 300.0,
                       quiet: float = 2.0) -> dict[str, Any]:
        """The only score accepted for user ``who``: it came within ``timeout`` seconds
        (a grading run on a loaded machine) and no other came in the ``quiet`` after."""
        user = self.users[who].user_id

        def theirs() -> list[dict[str, Any]]:
            return [one.body for one in self.accepted_scores() if one.body["userId"] == user]

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not theirs():
            time.sleep(0.2)
        time.sleep(quiet)
        scores = theirs()
        assert len(scores) == 1, scores
        return scores[0]

    def wait_for_scores(self, count: int = 1, timeout: float = 30.0,
                        accepted: bool = True) -> list[ScoreRecord]:
        """The scores received once ``count`` have arrived (``accepted``: answered 200)."""
        pick = self.accepted_scores if accepted else (lambda: list(self.received_scores))
        _wait(lambda: len(pick()) >= count, timeout,
              f"{len(pick())} of {count} scores arrived at the platform")
        return pick()

    def add_line_item(self, label: str, score_maximum: float, **fields: Any) -> dict[str, Any]:
        """A line item of the course (camelCase AGS fields from snake_case keywords)."""
        self._line_item_counter += 1
        item = {"id": self._line_item_id(self._line_item_counter), "label": label,
                "scoreMaximum": score_maximum}
        for name, value in fields.items():
            item[re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)] = value
        self.line_items[str(self._line_item_counter)] = item
        return item

    # -- Inside: signing -----------------------------------------------------------------

    def _tool(self) -> ToolRegistration:
        if self.tool is None:
            raise RuntimeError("no tool is registered: register_tool() or register_dynamically()")
        return self.tool

    def _registration(self, deployment_id: str, target_link_uri: str) -> Registration:
        tool = self._tool()
        return (Registration().set_iss(self.issuer).set_client_id(tool.client_id)
                .set_deployment_id(deployment_id).set_launch_url(target_link_uri)
                .set_oidc_login_url(tool.login_url).set_tool_key_set_url(tool.jwks_url)
                .set_platform_private_key(self.key.private_pem)
                .set_platform_public_key(self.key.public_pem))

    def _sign_launch(self, launch: Launch, params: dict[str, str]) -> tuple[str, dict[str, Any]]:
        """The id_token of ``launch`` for the tool's authentication request ``params``:
        claims by lti1p3platform, signed by it, then spoiled as ``launch.tamper`` says."""
        config = _Config(registration=self._registration(launch.deployment_id,
                                                         launch.target_link_uri))
        message = _MessageLaunch(params, config)
        message.validate_preflight_response(params)
        user = launch.user
        message.set_user_data(user.user_id, launch.roles + self._institution_roles(launch),
                              full_name=user.name, email_address=user.email)
        message.set_resource_link_claim(launch.resource_link_id, title="Minimax hand-in")
        message.set_launch_context_claim(
            self.context_id, context_types=[LIS + "course#CourseOffering"],
            context_title=self.context_title, context_label=self.context_label)
        message.set_launch_presentation_claim(document_target="iframe",
                                              return_url=f"{self.url}/courses/{self.context_id}")
        message.set_ags(self.lineitems_url, self.lineitem_url)
        message.set_nrps(self.memberships_url)
        if launch.custom:
            message.set_custom_parameters_claim(launch.custom)
        extra: dict[str, Any] = {
            "given_name": user.given_name, "family_name": user.family_name,
            CLAIM + "tool_platform": {"guid": "ttt-test-platform", "name": "TTT test LMS",
                                      "product_family_code": "ttt-test-platform",
                                      "version": "1.0"},
        }
        if user.sourcedid:
            extra[CLAIM + "lis"] = {"person_sourcedid": user.sourcedid,
                                    "course_offering_sourcedid": self.context_id}
        message.set_extra_claims(extra)
        message.set_extra_claims(self._profile_claims(launch))
        message.set_extra_claims(launch.extra_claims)
        token = message.generate_launch_request()["id_token"]
        claims = jwt.decode(token, options={"verify_signature": False})
        if launch.tamper:
            token, claims = self._spoil(token, claims, launch.tamper)
        return token, claims

    @staticmethod
    def _institution_roles(launch: Launch) -> list[str]:
        roles = [INSTITUTION_ROLES[short] for short, uri in CONTEXT_ROLES.items()
                 if uri in launch.roles and short in INSTITUTION_ROLES]
        return sorted(set(roles)) + [SYSTEM_USER]

    def _spoil(self, token: str, claims: dict[str, Any], how: str) -> tuple[str, dict[str, Any]]:
        """The id_token made bad in one way (each a reason the tool must refuse it)."""
        header, _, signature = token.split(".")
        now = int(time.time())
        claims = dict(claims)
        if how == "payload":
            # A student makes themselves an instructor and keeps the platform's signature.
            claims[CLAIM + "roles"] = [CONTEXT_ROLES["Instructor"]]
            return f"{header}.{_b64(claims)}.{signature}", claims
        if how == "signature":
            # One character of the signature changed: the claims are the platform's own.
            payload = token.split(".")[1]
            flipped = "A" if signature[10] != "A" else "B"
            return f"{header}.{payload}.{signature[:10]}{flipped}{signature[11:]}", claims
        if how == "alg_none":
            return jwt.encode(claims, None, algorithm="none"), claims
        if how == "unknown_kid":
            # A key the platform never published, under a kid nobody knows.
            return RsaKey.generate().sign(claims, kid="kid-nobody-published"), claims
        if how == "expired":
            claims.update(iat=now - 3600, exp=now - 600)
        elif how == "future":
            claims.update(iat=now + 3600, nbf=now + 3600, exp=now + 7200)
        elif how == "wrong_aud":
            claims.update(aud="some-other-tool", azp="some-other-tool")
        elif how == "wrong_iss":
            claims.update(iss="https://lms.example.invalid")
        elif how == "wrong_deployment":
            claims[CLAIM + "deployment_id"] = "999:deployment-unknown"
        elif how == "replayed_nonce":
            previous = [launch.nonce for launch in self.launches if launch.nonce]
            claims["nonce"] = previous[-1] if previous else "nonce-" + secrets.token_hex(8)
        return self.key.sign(claims), claims

    # -- Inside: HTTP --------------------------------------------------------------------

    def _app(self) -> Starlette:
        routes = [
            Route("/.well-known/openid-configuration", self._openid_configuration),
            Route("/jwks", self._jwks),
            Route("/register", self._register, methods=["POST"]),
            Route("/launch/{hint}", self._launch),
            Route("/auth", self._auth, methods=["GET", "POST"]),
            Route("/token", self._token, methods=["POST"]),
            Route("/api/courses/{context}/memberships", self._memberships),
            Route("/api/courses/{context}/line_items", self._lineitems, methods=["GET", "POST"]),
            Route("/api/courses/{context}/line_items/{item}", self._lineitem,
                  methods=["GET", "PUT", "DELETE"]),
            Route("/api/courses/{context}/line_items/{item}/scores", self._scores,
                  methods=["POST"]),
            Route("/api/courses/{context}/line_items/{item}/results", self._results),
            Route("/courses/{context}", self._course_page),
            *self._profile_routes(),
            Route("/courses/{context}/framed/{hint}", self._framed_course_page),
            Route("/storage-frame", self._storage_frame),
            Route("/storage-log", self._storage_log, methods=["POST"]),
            Route("/admin/registration", self._admin_registration),
        ]
        return Starlette(routes=routes)

    async def _openid_configuration(self, request: Request) -> Response:
        self.openid_configuration_fetches += 1
        if self.profile != "default":
            return JSONResponse(self._profile_fixture("openid_configuration"))
        return JSONResponse({
            "issuer": self.issuer,
            "authorization_endpoint": self.auth_login_url,
            "token_endpoint": self.auth_token_url,
            "registration_endpoint": self.registration_url,
            "jwks_uri": self.key_set_url,
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", *ALL_SCOPES],
            "response_types_supported": ["id_token"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "subject_types_supported": ["public", "pairwise"],
            "claims_supported": ["sub", "iss", "name", "given_name", "family_name", "email"],
            "authorization_server": self.auth_token_url,
            PLATFORM_CONFIGURATION: {
                "product_family_code": "ttt-test-platform", "version": "1.0",
                "messages_supported": [{"type": "LtiResourceLinkRequest"},
                                       {"type": "LtiDeepLinkingRequest"}],
                "variables": ["ResourceLink.id", "Context.id", "User.id"],
            },
        })

    async def _jwks(self, request: Request) -> Response:
        return JSONResponse(self.jwks())

    async def _register(self, request: Request) -> Response:
        """Dynamic Registration's registration endpoint: the tool POSTs its configuration
        with the registration token as Bearer; the answer adds client_id and deployment_id."""
        token = _bearer(request)
        if token is None or token not in self._registration_tokens:
            return _error(401, "invalid_token", "a registration needs the registration_token "
                          "of this registration as 'Authorization: Bearer ...'")
        try:
            sent = await request.json()
            tool = self._accept_registration(sent)
        except (ValueError, LtiError) as error:
            status, code, text = ((error.status, error.error, error.description)
                                  if isinstance(error, LtiError)
                                  else (400, "invalid_client_metadata", str(error)))
            return _error(status, code, text)
        self._registration_tokens.discard(token)   # one registration per token
        self.tool = tool
        self.registrations.append(tool)
        if self.profile != "default":
            return JSONResponse(self._profile_registration_reply(sent, tool))
        answer = dict(sent)
        answer["client_id"] = tool.client_id
        answer[TOOL_CONFIGURATION] = dict(sent[TOOL_CONFIGURATION],
                                          deployment_id=tool.deployment_id)
        return JSONResponse(answer)

    def _accept_registration(self, sent: Any) -> ToolRegistration:
        def need(condition: bool, text: str) -> None:
            if not condition:
                raise LtiError(400, "invalid_client_metadata", text)

        need(isinstance(sent, dict), "the registration request is a JSON object")
        need(sent.get("application_type") == "web", "application_type must be 'web'")
        need("id_token" in sent.get("response_types", []), "response_types must hold 'id_token'")
        need({"implicit", "client_credentials"} <= set(sent.get("grant_types", [])),
             "grant_types must hold 'implicit' and 'client_credentials'")
        need(sent.get("token_endpoint_auth_method") == "private_key_jwt",
             "token_endpoint_auth_method must be 'private_key_jwt'")
        for name in ("initiate_login_uri", "jwks_uri", "client_name"):
            need(isinstance(sent.get(name), str) and sent[name], f"{name} is missing")
        need(isinstance(sent.get("redirect_uris"), list) and sent["redirect_uris"],
             "redirect_uris must be a non-empty list")
        config = sent.get(TOOL_CONFIGURATION)
        need(isinstance(config, dict), f"{TOOL_CONFIGURATION} is missing")
        need(isinstance(config.get("domain"), str) and config["domain"], "domain is missing")
        need(isinstance(config.get("target_link_uri"), str), "target_link_uri is missing")
        scopes = [scope for scope in str(sent.get("scope", "")).split() if scope in ALL_SCOPES]
        return ToolRegistration(self.client_id, self.deployment_id, sent["initiate_login_uri"],
                                list(sent["redirect_uris"]), sent["jwks_uri"],
                                config["target_link_uri"], scopes, sent=sent)

    async def _launch(self, request: Request) -> Response:
        """The LMS's link: on to the tool's login URL, by GET or an auto-posted form."""
        launch = self._pending.get(request.path_params["hint"])
        if launch is None:
            return PlainTextResponse("no such launch", status_code=404)
        url = self._with_storage_target(self.login_initiation_url(launch), launch)
        if request.query_params.get("method") == "post":
            base, _, query = url.partition("?")
            fields = dict(httpx.QueryParams(query))
            return HTMLResponse(autopost_page(base, fields, title="Launching the tool"))
        return RedirectResponse(url, status_code=302)

    async def _auth(self, request: Request) -> Response:
        """The authorization endpoint: checks the tool's authentication request (OIDC
        implicit flow as LTI 1.3 profiles it) and answers with the auto-posted id_token."""
        params = dict(request.query_params)
        if request.method == "POST":
            params.update({k: str(v) for k, v in (await request.form()).items()})
        try:
            launch = self._check_authentication_request(params)
        except LtiError as error:
            return PlainTextResponse(f"{error.error}: {error.description}",
                                     status_code=error.status)
        launch.state, launch.nonce = params.get("state"), params["nonce"]
        launch.redirect_uri = params["redirect_uri"]
        launch.id_token, launch.claims = self._sign_launch(launch, params)
        self.launches.append(launch)
        fields = {"id_token": launch.id_token}
        if launch.state is not None:
            fields["state"] = launch.state
        return HTMLResponse(autopost_page(launch.redirect_uri, fields))

    def _check_authentication_request(self, params: dict[str, str]) -> Launch:
        def need(condition: bool, error: str, text: str) -> None:
            if not condition:
                raise LtiError(400, error, text)

        tool = self._tool()
        need(params.get("scope") == "openid", "invalid_scope", "scope must be 'openid'")
        need(params.get("response_type") == "id_token", "unsupported_response_type",
             "response_type must be 'id_token'")
        need(params.get("response_mode") == "form_post", "invalid_request",
             "response_mode must be 'form_post'")
        need(params.get("prompt") == "none", "invalid_request", "prompt must be 'none'")
        need(params.get("client_id") == tool.client_id, "unauthorized_client",
             f"client_id {params.get('client_id')!r} is not the tool's")
        # The id_token goes only to a redirect URI the tool registered (not to any URL).
        need(params.get("redirect_uri") in tool.redirect_uris, "invalid_request_uri",
             f"redirect_uri {params.get('redirect_uri')!r} is not registered")
        need(bool(params.get("nonce")), "invalid_request", "nonce is missing")
        with self._lock:
            launch = self._pending.pop(params.get("lti_message_hint", ""), None)
        need(launch is not None, "invalid_request",
             "lti_message_hint is unknown or was used already")
        assert launch is not None
        need(params.get("login_hint") == launch.user.user_id, "login_required",
             "login_hint is not the user who launched")
        return launch

    async def _token(self, request: Request) -> Response:
        """OAuth 2 client credentials with a JWT client assertion (RFC 7523, IMS Security
        Framework 4.1): the assertion is checked against the tool's JWKS, fetched now."""
        form = {k: str(v) for k, v in (await request.form()).items()}
        record = TokenRecord(form=form, status=200, error=None, description="")
        self.token_requests.append(record)
        failure = self._take_failure("token")
        if failure:
            record.status, record.error, record.description = failure[0], "failure", failure[1]
            return PlainTextResponse(failure[1], status_code=failure[0])
        try:
            token, scopes = await self._issue_token(form)
        except LtiError as error:
            record.status, record.error, record.description = (
                error.status, error.error, error.description)
            return _error(error.status, error.error, error.description)
        record.access_token, record.scopes = token, scopes
        return JSONResponse({"access_token": token, "token_type": "Bearer",
                             "expires_in": self.token_lifetime, "scope": " ".join(scopes)},
                            headers={"Cache-Control": "no-store"})

    async def _issue_token(self, form: dict[str, str]) -> tuple[str, list[str]]:
        if form.get("grant_type") != "client_credentials":
            raise LtiError(400, "unsupported_grant_type", "grant_type must be client_credentials")
        if form.get("client_assertion_type") != JWT_BEARER:
            raise LtiError(400, "invalid_request", f"client_assertion_type must be {JWT_BEARER}")
        assertion = form.get("client_assertion", "")
        tool = self.tool
        if tool is None:
            raise LtiError(401, "invalid_client", "no tool is registered")
        try:
            header = jwt.get_unverified_header(assertion)
        except jwt.PyJWTError as error:
            raise LtiError(400, "invalid_request", f"client_assertion is not a JWT: {error}")
        if header.get("alg") != "RS256" or not header.get("kid"):
            raise LtiError(401, "invalid_client", "the assertion must be RS256 with a kid")
        key = await self._tool_key(tool, header["kid"])
        try:
            claims = jwt.decode(assertion, key, algorithms=["RS256"],
                                audience=self.auth_token_url, issuer=tool.client_id, leeway=5,
                                options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
        except jwt.PyJWTError as error:
            raise LtiError(401, "invalid_client", f"the client assertion is refused: {error}")
        if claims["sub"] != tool.client_id:
            raise LtiError(401, "invalid_client", "sub must be the client_id")
        with self._lock:
            if claims["jti"] in self._used_jti:
                raise LtiError(400, "invalid_grant", "the assertion's jti was used already")
            self._used_jti.add(claims["jti"])
        asked = form.get("scope", "").split()
        scopes = [scope for scope in asked if scope in tool.scopes]
        if not scopes:
            raise LtiError(400, "invalid_scope", f"none of {asked} is granted to the tool")
        token = "at-" + secrets.token_urlsafe(24)
        self.access_tokens[token] = IssuedToken(tool.client_id, scopes,
                                          time.time() + self.token_lifetime)
        return token, scopes

    async def _tool_key(self, tool: ToolRegistration, kid: str) -> Any:
        """The tool's public key ``kid``, from its JWKS URL, fetched at every request (so a
        tool that rotates its key is followed at once)."""
        try:
            async with httpx.AsyncClient(timeout=5.0) as client:
                response = await client.get(tool.jwks_url)
            keys = response.json()["keys"]
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            raise LtiError(401, "invalid_client", f"the tool's JWKS {tool.jwks_url} could not "
                           f"be read: {error!r}")
        for jwk in keys:
            if jwk.get("kid") == kid:
                return jwt.PyJWK(jwk, algorithm="RS256").key
        raise LtiError(401, "invalid_client", f"no key {kid!r} in the tool's JWKS")

    # -- Inside: services ----------------------------------------------------------------

    def _take_failure(self, endpoint: str) -> tuple[int, str] | None:
        with self._lock:
            failure = self._failures.get(endpoint)
            if failure is None:
                return None
            status, times, body = failure
            if times is not None:
                if times <= 1:
                    del self._failures[endpoint]
                else:
                    self._failures[endpoint] = (status, times - 1, body)
            return status, body

    def _authorize(self, request: Request, *scopes: str) -> None:
        """The request's bearer token was issued here, is alive and has one of ``scopes``."""
        token = _bearer(request)
        issued = self.access_tokens.get(token or "")
        if issued is None:
            raise LtiError(401, "invalid_token", "no access token, or one this LMS never issued")
        if issued.expires_at < time.time():
            raise LtiError(401, "invalid_token", "the access token expired")
        if not set(scopes) & set(issued.scopes):
            raise LtiError(403, "insufficient_scope", f"the token lacks a scope of {scopes}")
        if request.path_params.get("context") != self.context_id:
            raise LtiError(404, "not_found", "no such course")

    async def _service(self, request: Request, endpoint: str, scopes: tuple[str, ...],
                       handler: Any) -> Response:
        failure = self._take_failure(endpoint)
        if failure:
            response: Response = PlainTextResponse(failure[1], status_code=failure[0])
        else:
            try:
                self._authorize(request, *scopes)
                response = await handler(request)
            except LtiError as error:
                response = _error(error.status, error.error, error.description)
        self.service_requests.append((request.method, request.url.path, response.status_code))
        return response

    async def _memberships(self, request: Request) -> Response:
        return await self._service(request, "memberships", (SCOPE_NRPS,), self._members_page)

    async def _members_page(self, request: Request) -> Response:
        """NRPS 2.0: the membership container, ``role`` filter, ``limit`` pages with a Link
        header ``rel="next"``."""
        members = [user.member() for user in self.users.values()]
        role = request.query_params.get("role")
        if role:
            uri = CONTEXT_ROLES.get(role, role)
            members = [member for member in members if uri in member["roles"]]
        headers = {}
        limit = int(request.query_params.get("limit", "0") or 0)
        if self.profile != "default":
            members, headers = self._profile_page(request, members)
        elif limit > 0:
            page = int(request.query_params.get("page", "1"))
            start = (page - 1) * limit
            if start + limit < len(members):
                query = dict(request.query_params, page=str(page + 1))
                headers["Link"] = f'<{self.memberships_url}?{urlencode(query)}>; rel="next"'
            members = members[start:start + limit]
        body = {"id": str(request.url),
                "context": {"id": self.context_id, "label": self.context_label,
                            "title": self.context_title},
                "members": members}
        return JSONResponse(body, media_type=MEDIA_MEMBERSHIPS, headers=headers)

    async def _lineitems(self, request: Request) -> Response:
        scopes = (SCOPE_LINEITEM,) if request.method == "POST" else (
            SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY)
        return await self._service(request, "lineitems", scopes, self._lineitems_handler)

    async def _lineitems_handler(self, request: Request) -> Response:
        if request.method == "POST":
            body = await request.json()
            if not isinstance(body, dict) or not body.get("label") or not (
                    isinstance(body.get("scoreMaximum"), (int, float)) and body["scoreMaximum"] > 0):
                raise LtiError(400, "invalid_request", "a line item needs label and scoreMaximum > 0")
            fields = {k: v for k, v in body.items() if k not in ("id", "label", "scoreMaximum")}
            item = self.add_line_item(body["label"], body["scoreMaximum"])
            item.update(fields)
            return JSONResponse(item, status_code=201, media_type=MEDIA_LINEITEM)
        items = list(self.line_items.values())
        for param, name in (("resource_link_id", "resourceLinkId"), ("resource_id", "resourceId"),
                            ("tag", "tag")):
            if param in request.query_params:
                items = [item for item in items if item.get(name) == request.query_params[param]]
        return JSONResponse(items, media_type=MEDIA_LINEITEMS)

    async def _lineitem(self, request: Request) -> Response:
        scopes = (SCOPE_LINEITEM,) if request.method != "GET" else (
            SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY)
        return await self._service(request, "lineitems", scopes, self._lineitem_handler)

    async def _lineitem_handler(self, request: Request) -> Response:
        item = self.line_items.get(request.path_params["item"])
        if item is None:
            raise LtiError(404, "not_found", "no such line item")
        if request.method == "DELETE":
            del self.line_items[request.path_params["item"]]
            return Response(status_code=204)
        if request.method == "PUT":
            body = await request.json()
            item.update({k: v for k, v in body.items() if k != "id"})
        return JSONResponse(item, media_type=MEDIA_LINEITEM)

    async def _scores(self, request: Request) -> Response:
        """AGS 2.0 score publish. Every POST is recorded, then answered: a failure switched
        on, or 401/403 for the token, 415 for the media type, 400/422 for the score, 409 for
        a score older than the one on record, else 200."""
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode(errors="replace")
        record = ScoreRecord(line_item_id=request.path_params["item"], body=body,
                             authorization=request.headers.get("authorization"),
                             token=_bearer(request),
                             content_type=request.headers.get("content-type", ""),
                             status=200, reason="recorded", received_at=time.time())
        self.received_scores.append(record)

        async def publish(request: Request) -> Response:
            return self._publish_score(record)

        response = await self._service(request, "scores", (SCOPE_SCORE,), publish)
        record.status = response.status_code
        if response.status_code != 200:
            record.reason = bytes(response.body).decode(errors="replace")[:300]
        return response

    def _publish_score(self, record: ScoreRecord) -> Response:
        def need(condition: bool, status: int, text: str) -> None:
            if not condition:
                raise LtiError(status, "invalid_request", text)

        need(record.line_item_id in self.line_items, 404, "no such line item")
        need(record.content_type.split(";")[0].strip() == MEDIA_SCORE, 415,
             f"a score is sent as {MEDIA_SCORE}, not {record.content_type!r}")
        score = record.body
        need(isinstance(score, dict), 400, "a score is a JSON object")
        for name in ("userId", "activityProgress", "gradingProgress", "timestamp"):
            need(name in score, 400, f"{name} is missing")
        need(score["activityProgress"] in ACTIVITY_PROGRESS, 400, "unknown activityProgress")
        need(score["gradingProgress"] in GRADING_PROGRESS, 400, "unknown gradingProgress")
        if "scoreGiven" in score:
            need(isinstance(score["scoreGiven"], (int, float)) and score["scoreGiven"] >= 0, 400,
                 "scoreGiven must be a number >= 0")
            need(isinstance(score.get("scoreMaximum"), (int, float)) and
                 score["scoreMaximum"] > 0, 400, "scoreMaximum (> 0) must come with scoreGiven")
        try:
            stamp = datetime.fromisoformat(str(score["timestamp"]).replace("Z", "+00:00"))
        except ValueError:
            stamp = None
        need(stamp is not None and stamp.tzinfo is not None, 400,
             "timestamp must be ISO 8601 with a time zone")
        known = {user.user_id for user in self.users.values()}
        need(score["userId"] in known, 422, f"user {score['userId']!r} is not in the course")
        key = (record.line_item_id, score["userId"])
        refused = self._profile_attempt(key, score)
        if refused is not None:
            return refused
        previous = self.results.get(key)
        if previous is not None:
            # Equal timestamps are taken (a retried POST); only an older score is refused.
            older = stamp < datetime.fromisoformat(previous["timestamp"].replace("Z", "+00:00"))
            need(not older, 409, "a later score is on record")
        self.results[key] = dict(score)
        item_url = self.line_items[record.line_item_id]["id"]
        return JSONResponse({"resultUrl": f"{item_url}/results?user_id={score['userId']}"})

    async def _results(self, request: Request) -> Response:
        async def handler(request: Request) -> Response:
            item_id = request.path_params["item"]
            if item_id not in self.line_items:
                raise LtiError(404, "not_found", "no such line item")
            item_url = self.line_items[item_id]["id"]
            wanted = request.query_params.get("user_id")
            results = [{"id": f"{item_url}/results/{user}", "scoreOf": item_url, "userId": user,
                        "resultScore": score.get("scoreGiven"),
                        "resultMaximum": score.get("scoreMaximum"),
                        "comment": score.get("comment")}
                       for (item, user), score in self.results.items()
                       if item == item_id and (wanted is None or wanted == user)]
            return JSONResponse(results, media_type=MEDIA_RESULTS)

        return await self._service(request, "lineitems", (SCOPE_RESULT_READONLY,), handler)

    async def _course_page(self, request: Request) -> Response:
        """Where launch_presentation's return_url leads."""
        return HTMLResponse(f"<h1>{html.escape(self.context_title)}</h1>")

    # -- Profiles: Canvas and Moodle as their sources say (tests/service/fixtures/) -------

    # Where each LMS's openid-configuration lives (Canvas: the openid_configuration_url
    # route of dynamic_registration_controller.rb; Moodle: mod/lti/openid-configuration.php).
    _OPENID_PATHS = {"canvas": "https://canvas.instructure.com/api/lti/security/"
                               "openid-configuration",
                     "moodle": "https://moodle.example.edu/mod/lti/openid-configuration.php"}
    _CONFIG_KEYS = {"auth_login_url": "authorization_endpoint",
                    "auth_token_url": "token_endpoint", "key_set_url": "jwks_uri",
                    "registration_url": "registration_endpoint"}

    def _map(self, text: str, **values: Any) -> str:
        """A fixture's text on this platform: the LMS's hosts made this server's (Canvas's
        school domain its "localhost" name), the placeholders filled in."""
        for real, here in (("https://canvas.instructure.com", self.url),
                           ("https://sso.canvaslms.com", self.url),
                           ("https://school.instructure.com", self.school_url),
                           ("https://moodle.example.edu", self.url)):
            text = text.replace(real, here)
        filled = {"context_id": self.context_id, "deployment_id": self.deployment_ids[0],
                  "client_id": self.client_id, **values}
        for name, value in filled.items():
            text = text.replace("{" + name + "}", str(value))
        return text

    def _profile_fixture(self, name: str, **values: Any) -> Any:
        return json.loads(self._map(json.dumps(load_fixture(self.profile, name)), **values))

    def _profile_url(self, name: str) -> str | None:
        """The profile's URL ``name`` (None: the default platform's)."""
        if self.profile == "default":
            return None
        if name == "openid_configuration_url":
            return self._map(self._OPENID_PATHS[self.profile])
        if name in self._CONFIG_KEYS:
            return str(self._profile_fixture("openid_configuration")[self._CONFIG_KEYS[name]])
        return str(self._profile_fixture("launch_claims")["services"][name])

    def _line_item_id(self, number: int) -> str:
        if self.profile == "default":
            return f"{self.lineitems_url}/{number}"
        return str(self._profile_fixture("launch_claims", item=number)["services"]["lineitem"])

    def _profile_routes(self) -> list[Route]:
        """The paths Canvas and Moodle serve the same things on (any profile answers all)."""
        canvas, moodle = "/api/lti/courses/{context}", "/mod/lti/services.php/{context}"
        return [
            Route("/api/lti/security/openid-configuration", self._openid_configuration),
            Route("/api/lti/registrations", self._register, methods=["POST"]),
            Route("/api/lti/authorize_redirect", self._auth, methods=["GET", "POST"]),
            Route("/login/oauth2/token", self._token, methods=["POST"]),
            Route("/api/lti/security/jwks", self._jwks),
            Route(canvas + "/names_and_roles", self._memberships),
            Route(canvas + "/line_items", self._lineitems, methods=["GET", "POST"]),
            Route(canvas + "/line_items/{item}", self._lineitem, methods=["GET", "PUT", "DELETE"]),
            Route(canvas + "/line_items/{item}/scores", self._scores, methods=["POST"]),
            Route("/mod/lti/openid-configuration.php", self._openid_configuration),
            Route("/mod/lti/openid-registration.php", self._register, methods=["POST"]),
            Route("/mod/lti/auth.php", self._auth, methods=["GET", "POST"]),
            Route("/mod/lti/token.php", self._token, methods=["POST"]),
            Route("/mod/lti/certs.php", self._jwks),
            Route("/mod/lti/services.php/CourseSection/{context}/bindings/{binding}/memberships",
                  self._memberships),
            Route(moodle + "/lineitems", self._lineitems, methods=["GET", "POST"]),
            Route(moodle + "/lineitems/{item}/lineitem", self._lineitem,
                  methods=["GET", "PUT", "DELETE"]),
            Route(moodle + "/lineitems/{item}/lineitem/scores", self._scores, methods=["POST"]),
        ]

    def _profile_registration_reply(self, sent: dict[str, Any],
                                    tool: ToolRegistration) -> dict[str, Any]:
        """The registration endpoint's answer as Canvas or Moodle writes it."""
        reply = self._profile_fixture("registration_reply", deployment_id=tool.deployment_id)
        config = dict(sent.get(TOOL_CONFIGURATION) or {})
        if self.profile == "canvas":
            answer = {key: value for key, value in sent.items() if key != TOOL_CONFIGURATION}
            answer.update(client_id=reply["client_id"],
                          scope=" ".join(tool.scopes + ["openid"]),
                          registration_client_uri=reply["registration_client_uri"])
            answer[TOOL_CONFIGURATION] = {**config, **reply["tool_configuration_extensions"]}
            if self.canvas_deployment:
                answer["deployment_id"] = reply["deployment_id"]
            return answer
        moodle = reply[TOOL_CONFIGURATION]
        answer = {key: value for key, value in reply.items() if key != TOOL_CONFIGURATION}
        answer.update(jwks_uri=sent["jwks_uri"], initiate_login_uri=sent["initiate_login_uri"],
                      redirect_uris=sent["redirect_uris"], client_name=sent["client_name"],
                      logo_uri="", scope=" ".join(tool.scopes))
        answer[TOOL_CONFIGURATION] = {
            "deployment_id": moodle["deployment_id"],
            "target_link_uri": config.get("target_link_uri"), "domain": config.get("domain"),
            "description": "", "claims": moodle["claims"]}
        return answer

    page_size: int | None = None     # pages of this many members (None: the LMS's default)

    def _profile_page(self, request: Request,
                      members: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """One page of ``members`` and its Link header, as Canvas (page, per_page: 50 at
        most) or Moodle (limit, from) pages them."""
        page = self._profile_fixture("memberships_page")
        base = self.memberships_url
        if self.profile == "canvas":
            size = min(int(request.query_params.get("per_page", 0) or self.page_size or 50), 50)
            number = int(request.query_params.get("page", 1) or 1)
            last = max(1, -(-len(members) // size))
            template = page["link_header"] if number < last else page["last_page_link_header"]
            link = (template.replace("{url}", base).replace("{page}", str(number))
                    .replace("{next}", str(number + 1)).replace("{last}", str(last))
                    .replace("{per_page}", str(size)))
            return members[(number - 1) * size:number * size], {"Link": link}
        limit = int(request.query_params.get("limit", 0) or self.page_size or 0)
        start = int(request.query_params.get("from", 0) or 0)
        if limit <= 0:
            return members, {}
        headers = {}
        if start + limit < len(members):
            headers["Link"] = (page["link_header"].replace("{url}", base)
                               .replace("{limit}", str(limit))
                               .replace("{from}", str(start + limit)))
        return members[start:start + limit], headers

    def _profile_claims(self, launch: Launch) -> dict[str, Any]:
        """The claims Canvas or Moodle adds to (or writes otherwise in) a launch."""
        if self.profile == "default":
            return {}
        fixture = self._profile_fixture("launch_claims", user_id=launch.user.user_id)
        claims = dict(fixture["claims"])
        if launch.custom or CLAIM + "custom" in claims:
            claims[CLAIM + "custom"] = {**claims.get(CLAIM + "custom", {}), **launch.custom}
        if self.profile == "moodle":     # Moodle sends the context roles alone
            claims[CLAIM + "roles"] = list(launch.roles)
        return claims

    def _profile_attempt(self, key: tuple[str, str], score: dict[str, Any]) -> Response | None:
        """Canvas: a score that is a new submission (no extension, or new_submission true)
        is a new attempt; past ``canvas_attempts`` it is answered 422 as Canvas does."""
        if self.profile != "canvas":
            return None
        extension = score.get(CANVAS_SUBMISSION)
        new = not isinstance(extension, dict) or extension.get("new_submission", True) is not False
        if not new:
            return None
        used = self.attempts.get(key, 0)
        if self.canvas_attempts is not None and used >= self.canvas_attempts:
            refused = load_fixture("canvas", "score_replies")["attempts_exhausted"]
            return JSONResponse(refused["body"], status_code=refused["status"])
        self.attempts[key] = used + 1
        return None

    # -- Framed in the course page, with the platform's storage (browser tests) ----------

    STORAGE_FRAME = "post_message_forwarding"     # the frame's name, as Canvas calls it

    def serve_tls(self, certfile: str, keyfile: str) -> "LtiPlatform":
        """Serve over HTTPS with this certificate (call before ``start``): the URLs say
        https. Its own host name stays ``url_host`` (``localhost``: another site than a
        tool at 127.0.0.1)."""
        self.__dict__["_tls"] = (str(certfile), str(keyfile))

        def secure(url: str) -> str:
            return "https" + url[len("http"):] if url.startswith("http:") else url

        # Everything named from the URLs so far follows: Canvas's school domain, and the
        # line items made in __init__ (their ids are URLs).
        self.url, self.school_url = secure(self.url), secure(self.school_url)
        for item in self.line_items.values():
            item["id"] = secure(item["id"])
        return self

    def framed_launch_url(self, user: str | User, *, storage: bool = True,
                          **options: Any) -> str:
        """The course page that frames the tool's launch as ``user``, cross-site, as Canvas
        shows an assignment: the tool's iframe and, beside it, the platform's storage frame
        (``storage``: the login initiation names it in ``lti_storage_target``, the LTI
        client-side postMessage storage). ``options`` go to :meth:`launch_url`."""
        link = self.launch_url(user, method="post", **options)
        hint = link.rsplit("/", 1)[1].split("?", 1)[0]
        if storage:
            self._storage_hints().add(hint)
        return f"{self.url}/courses/{self.context_id}/framed/{hint}"

    def _storage_hints(self) -> set[str]:
        return self.__dict__.setdefault("_storage_hint_set", set())

    def storage_requests(self) -> list[dict[str, Any]]:
        """What the tool asked the storage frame (as the course page's script saw it)."""
        return self.__dict__.setdefault("_storage_log", [])

    def _with_storage_target(self, url: str, launch: Launch) -> str:
        if launch.hint not in self._storage_hints():
            return url
        return url + ("&" if "?" in url else "?") + urlencode(
            {"lti_storage_target": self.STORAGE_FRAME})

    async def _framed_course_page(self, request: Request) -> Response:
        hint = request.path_params["hint"]
        if hint not in self._pending:
            return PlainTextResponse("no such launch", status_code=404)
        launch = f"/launch/{html.escape(hint)}?method=post"
        # The tool's frame starts once the storage frame listens (else its first message
        # could come before the listener, and the test would depend on the frames' race),
        # unless the test asks for a late storage frame (``storage_late_ms``): then both
        # start at once and the storage frame listens only after that many milliseconds.
        late = self.__dict__.get("storage_late_ms", 0)
        storage = (f'<iframe name="{self.STORAGE_FRAME}" src="/storage-frame" '
                   'title="storage" style="display:none"' + ("" if late else (
                       ' onload="document.getElementById('
                       f'\'tool\').src = \'{launch}\'"')) + '></iframe>'
                   if hint in self._storage_hints() else "")
        return HTMLResponse(
            f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(self.context_title)}</title></head>\n<body>\n"
            f"<h1>{html.escape(self.context_title)}</h1>\n{storage}\n"
            f'<iframe id="tool" name="tool" title="Minimax hand-in" '
            f'src="{"about:blank" if storage and not late else launch}" '
            f'style="width:960px;height:640px;border:1px solid #888"></iframe>\n'
            "</body></html>\n")

    async def _storage_frame(self, request: Request) -> Response:
        """The platform's storage frame (1EdTech Platform Storage): ``lti.put_data`` and
        ``lti.get_data`` from a tool's frame, each value kept under the sender's origin
        (as canvas-lms ui/shared/lti/jquery/platform_storage.ts does), answered to that
        origin only; an unknown subject is answered with an error."""
        script = """
var kept = {};
window.setTimeout(function () { window.addEventListener("message", function (event) {
  var data = event.data || {};
  if (typeof data.subject !== "string" || data.subject.indexOf("lti.") !== 0) { return; }
  var answer = {subject: data.subject + ".response", message_id: data.message_id};
  var where = event.origin + " " + data.key;
  if (!data.message_id || !data.key) {
    answer.error = {code: "bad_request", message: "key and message_id are required"};
  } else if (data.subject === "lti.put_data") {
    kept[where] = data.value; answer.key = data.key; answer.value = data.value;
  } else if (data.subject === "lti.get_data") {
    answer.key = data.key; answer.value = kept[where];
  } else {
    answer.error = {code: "unsupported_subject", message: data.subject};
  }
  fetch("/storage-log", {method: "POST", body: JSON.stringify(
    {subject: data.subject, origin: event.origin, key: data.key || null,
     found: answer.value !== undefined})});
  event.source.postMessage(answer, event.origin);
}); }, LATE_MS);
""".replace("LATE_MS", str(int(self.__dict__.get("storage_late_ms", 0))))
        return HTMLResponse("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>"
                            f"<script>{script}</script></body></html>")

    async def _admin_registration(self, request: Request) -> Response:
        """See :meth:`admin_registration_url`: the tool's registration page in a frame."""
        target = request.query_params.get("url", "")
        if not target.startswith(("http://", "https://")):
            return PlainTextResponse("no tool registration URL", status_code=400)
        script = """
window.addEventListener("message", function (event) {
  var frame = document.getElementById("registration");
  if (event.source === frame.contentWindow && event.data &&
      event.data.subject === "org.imsglobal.lti.close") {
    document.getElementById("closed").textContent = "closed";
  }
});
"""
        return HTMLResponse(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Register a tool"
            "</title></head>\n<body>\n<h1>Register an LTI 1.3 tool</h1>\n"
            f"<p id=\"closed\"></p><script>{script}</script>\n"
            f'<iframe id="registration" name="registration" title="The tool\'s registration" '
            f'src="{html.escape(target)}" style="width:960px;height:480px"></iframe>\n'
            "</body></html>\n")

    async def _storage_log(self, request: Request) -> Response:
        self.storage_requests().append(json.loads(await request.body()))
        return Response(status_code=204)


def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"WWW-Authenticate": f'Bearer error="{error}"'} if status == 401 else {}
    return JSONResponse({"error": error, "error_description": description}, status_code=status,
                        headers=headers)


def _wait(condition: Any, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.05)


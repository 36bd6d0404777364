"""The platforms (LMSs) the course is registered with, and their deployments.

A platform is described in the field names tools commonly use (issuer, client_id,
deployment_ids, auth_login_url, auth_token_url, key_set_url); the same issuer may be
registered with several client ids (two Canvas developer keys), and each platform with
several deployments. A launch is bound to the platform and deployment it came from.

    platform = add_platform(store, describe_platform(json.loads(text)), who="command line")
    find_platform(store, "https://canvas.instructure.com", "10000000000001")
    urls = tool_urls("https://grader.example.org")  # what to paste into the LMS
"""

from __future__ import annotations

import ipaddress
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

from grader.service.course.storage import Store
from grader.service.course.times import utc_now
from grader.service.lti.addresses import AddressRefused, host_of
from grader.service.lti.errors import RegistrationError

DYNAMIC = "dynamic registration"        # added_by of a platform Dynamic Registration added
HOSTS_SETTING = "lti_service_hosts:"     # + platform id: JSON list of more service hosts
FIELDS = ("issuer", "client_id", "auth_login_url", "auth_token_url", "key_set_url")
# What other tools' files call the same things (pylti1.3's, ltijs's, Moodle's tool page).
ALIASES = {"iss": "issuer", "oidc_auth_url": "auth_login_url", "auth_url": "auth_login_url",
           "authentication_request_url": "auth_login_url", "token_url": "auth_token_url",
           "access_token_url": "auth_token_url", "key_set": "key_set_url",
           "jwks_url": "key_set_url", "public_keyset_url": "key_set_url",
           "deployment_id": "deployment_ids"}


@dataclass(frozen=True)
class PlatformInfo:
    """A platform as described, before it is stored."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    deployment_ids: tuple[str, ...] = ()
    name: str = ""
    service_hosts: tuple[str, ...] = ()    # more hosts its roster and grade services are on


@dataclass(frozen=True)
class Platform:
    """A stored platform (``id``: its row) and its deployments."""

    id: int
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    name: str
    deployment_ids: tuple[str, ...]
    frame_origins: tuple[str, ...]
    added_at: str
    added_by: str = ""

    @property
    def awaits_deployment(self) -> bool:
        """Registered by Dynamic Registration with no deployment yet (Canvas gives one only
        when the tool is installed): its first verified launch records it."""
        return self.added_by == DYNAMIC and not self.deployment_ids

    @property
    def label(self) -> str:
        """How a page names it: its name, else its issuer (and client id)."""
        return self.name or f"{self.issuer} (client {self.client_id})"


@dataclass(frozen=True)
class ToolUrls:
    """The tool's own addresses, to paste into the LMS."""

    login: str          # OIDC login initiation URL
    launch: str         # redirect (launch) URL, also the target link URI
    jwks: str           # public key set URL
    registration: str   # Dynamic Registration (with the course's registration code)


def tool_urls(base_url: str, registration_code: str = "CODE") -> ToolUrls:
    """The tool's URLs under ``base_url``.

    >>> tool_urls("https://grader.example.org/").launch
    'https://grader.example.org/lti/launch'
    """
    base = base_url.rstrip("/")
    return ToolUrls(f"{base}/lti/login", f"{base}/lti/launch", f"{base}/lti/jwks.json",
                    f"{base}/lti/register/{registration_code}")


def plain_http_warning(base_url: str) -> str | None:
    """What to tell the instructor when the tool's URLs are plain http:// (an LMS refuses
    them, and its launches' cookies need https), else None.

    >>> plain_http_warning("https://grader.example.org") is None
    True
    >>> plain_http_warning("http://127.0.0.1:8000").startswith("the tool's URLs are http://")
    True
    """
    if not base_url.lower().startswith("http://"):
        return None
    return ("the tool's URLs are http://, and an LMS (Canvas, Moodle) needs https://: serve "
            "the page behind a reverse proxy with TLS (Caddy, nginx) and start it with "
            "--base-url https://YOUR.HOST (or give --ssl-keyfile and --ssl-certfile), then "
            "register these URLs")


def _url(value: Any, name: str, source: str) -> str:
    text = str(value or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RegistrationError(f"{source}: {name} must be an http(s) URL, not {text!r} "
                                "(copy it from the LMS's tool registration page)")
    return text


def describe_platform(data: Any, source: str = "the platform") -> PlatformInfo:
    """A platform from its JSON description (the common field names, or their aliases).

    >>> info = describe_platform({"issuer": "https://lms.example", "client_id": "7",
    ...     "deployment_ids": ["1"], "auth_login_url": "https://lms.example/auth",
    ...     "auth_token_url": "https://lms.example/token",
    ...     "key_set_url": "https://lms.example/jwks"})
    >>> info.client_id, info.deployment_ids
    ('7', ('1',))
    """
    if not isinstance(data, dict):
        raise RegistrationError(f"{source} must be a JSON object with the fields "
                                f"{', '.join(FIELDS)}, deployment_ids")
    fields = {ALIASES.get(key, key): value for key, value in data.items()}
    missing = [name for name in FIELDS if not fields.get(name)]
    if missing:
        raise RegistrationError(f"{source} lacks {', '.join(missing)}: every platform needs "
                                f"{', '.join(FIELDS)} (and deployment_ids), as the LMS shows "
                                "them when the tool is registered")
    deployments = fields.get("deployment_ids") or []
    if isinstance(deployments, (str, int)):
        deployments = [deployments]
    if not isinstance(deployments, list) or not deployments or \
            not all(isinstance(one, (str, int)) and str(one).strip() for one in deployments):
        raise RegistrationError(f"{source}: deployment_ids must be a list of the deployment "
                                "ids the LMS gave, e.g. [\"1\"]")
    return PlatformInfo(
        issuer=_url(fields["issuer"], "issuer", source),
        client_id=str(fields["client_id"]).strip(),
        auth_login_url=_url(fields["auth_login_url"], "auth_login_url", source),
        auth_token_url=_url(fields["auth_token_url"], "auth_token_url", source),
        key_set_url=_url(fields["key_set_url"], "key_set_url", source),
        deployment_ids=tuple(dict.fromkeys(str(one).strip() for one in deployments)),
        name=str(fields.get("name") or "").strip(),
        service_hosts=_hosts(fields.get("service_hosts"), source))


def _hosts(value: Any, source: str) -> tuple[str, ...]:
    """``service_hosts`` of a platform file: the hosts (``school.instructure.com``) its
    roster and grade services are on besides its issuer's, login's, token's and key set's
    (Canvas serves them on the school's domain)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(one, str) for one in value):
        raise RegistrationError(f"{source}: service_hosts must be a list of host names, e.g. "
                                '["school.instructure.com"]')
    try:
        return tuple(host_of(f"https://{one.strip()}/", "service_hosts")
                     if "://" not in one else host_of(one, "service_hosts") for one in value)
    except AddressRefused as problem:
        raise RegistrationError(f"{source}: {problem}") from None


def read_platform_file(path: Path) -> PlatformInfo:
    """The platform described in the JSON file at ``path``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as problem:
        raise RegistrationError(f"cannot read {path}: {problem.strerror or problem}") from None
    except ValueError as problem:
        raise RegistrationError(f"{path} is not JSON ({problem}): write an object such as "
                                '{"issuer": "https://...", "client_id": "...", ...}') from None
    return describe_platform(data, str(path))


def origin(url: str) -> str:
    """The origin (scheme://host[:port]) of ``url``.

    >>> origin("https://lms.example:8443/mod/lti/auth.php")
    'https://lms.example:8443'
    """
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def add_platform(store: Store, info: PlatformInfo, *, who: str,
                 may_change_urls: bool = False) -> Platform:
    """Store ``info``: the platform as stored. An issuer and client id already stored gets
    the new deployments (none is ever removed); its URLs are never rewritten unless
    ``may_change_urls`` (the server's own command line): a registration that names other
    URLs for it is refused (RegistrationError), since a platform's key set decides who may
    sign in."""
    now = utc_now()
    origins = sorted({origin(info.issuer), origin(info.auth_login_url)})
    with store.database.transaction() as db:
        row = db.execute("SELECT * FROM lti_platforms WHERE issuer = ? AND "
                         "client_id = ?", (info.issuer, info.client_id)).fetchone()
        if row is None:
            number = db.execute(
                "INSERT INTO lti_platforms (issuer, client_id, auth_login_url, auth_token_url, "
                "key_set_url, name, frame_origins, added_at, added_by) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info.issuer, info.client_id, info.auth_login_url, info.auth_token_url,
                 info.key_set_url, info.name, json.dumps(origins), now, who)).lastrowid
        else:
            number = row["id"]
            urls = ("auth_login_url", "auth_token_url", "key_set_url")
            changed = [name for name in urls if row[name] != getattr(info, name)]
            if changed and not may_change_urls:
                raise RegistrationError(
                    f"{info.issuer} (client {info.client_id}) is registered already with "
                    f"another {', '.join(changed)}: refused, a registration never changes a "
                    "registered platform's URLs. If the LMS really moved, the server's "
                    "administrator stores them with serve --lti-platform FILE.json")
            kept = sorted(set(json.loads(row["frame_origins"])) | set(origins))
            db.execute("UPDATE lti_platforms SET auth_login_url = ?, auth_token_url = ?, "
                       "key_set_url = ?, name = COALESCE(NULLIF(?, ''), name), "
                       "frame_origins = ? WHERE id = ?",
                       (info.auth_login_url, info.auth_token_url, info.key_set_url, info.name,
                        json.dumps(kept), number))
        for deployment in info.deployment_ids:
            db.execute("INSERT OR IGNORE INTO lti_deployments VALUES (?, ?, ?)",
                       (number, deployment, now))
        if info.service_hosts:
            key = f"{HOSTS_SETTING}{number}"
            before = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
            hosts = sorted(set(json.loads(before["value"]) if before else ()) |
                           set(info.service_hosts))
            db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                       "value = excluded.value", (key, json.dumps(hosts)))
    found = platform_by_id(store, int(number))
    assert found is not None
    return found


def own_hosts(platform: Platform) -> set[str]:
    """The hosts of the platform's issuer, login, token and key set URLs."""
    hosts = set()
    for url in (platform.issuer, platform.auth_login_url, platform.auth_token_url,
                platform.key_set_url):
        try:
            hosts.add(host_of(url))
        except AddressRefused:
            continue
    return hosts


def service_hosts(store: Store, platform: Platform) -> set[str]:
    """The hosts the platform's roster (NRPS) and grade (AGS) services may be on: those of
    its issuer, login, token and key set URLs, and those its registration recorded (the
    registration endpoint's host from its openid-configuration, or a file's
    ``service_hosts``). A service URL elsewhere never gets the platform's token.

    Canvas: issuer canvas.instructure.com, login, token and keys on sso.canvaslms.com, the
    services and the registration endpoint on the school's domain.
    """
    hosts = own_hosts(platform)
    more = store.get_setting(f"{HOSTS_SETTING}{platform.id}")
    hosts.update(json.loads(more) if more else ())
    return hosts


def on_platform_hosts(store: Store, platform: Platform, url: str) -> bool:
    """Whether ``url`` (from a launch, or a roster page's Link) is on the platform's hosts."""
    try:
        return host_of(url) in service_hosts(store, platform)
    except AddressRefused:
        return False


def record_first_deployment(store: Store, platform: Platform, deployment: str) -> bool:
    """Record ``deployment`` as the platform's, only when it awaits its first one (added by
    Dynamic Registration, none yet): True when recorded. Called with a launch whose
    signature verified, under that registration's client id."""
    if not deployment or not platform.awaits_deployment:
        return False
    with store.database.transaction() as db:
        none = db.execute("SELECT 1 FROM lti_deployments WHERE platform = ?",
                          (platform.id,)).fetchone() is None
        if none:
            db.execute("INSERT INTO lti_deployments VALUES (?, ?, ?)",
                       (platform.id, deployment, utc_now()))
    return none


MAX_FRAME_ORIGINS = 20     # per platform: a school's domain or two, not a growing list
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}"
                   r"[a-z0-9])?)*")


def bare_origin(value: str, *, allow_http: bool) -> str | None:
    """``value`` when it is a bare origin a CSP may name (lowercase ``https://host[:port]``;
    ``http://`` only with ``allow_http``), else None. A host is letters, digits, dots and
    hyphens, or an IP literal; nothing else passes (no spaces, semicolons, quotes,
    wildcards, paths, user info), so that an origin can never add a directive to a CSP.

    >>> bare_origin("https://School.Instructure.com", allow_http=False)
    'https://school.instructure.com'
    >>> bare_origin("https://[::1]:8443", allow_http=False)
    'https://[::1]:8443'
    >>> [bare_origin(bad, allow_http=True) for bad in ("* ; script-src-elem *", "https://*.x",
    ...  "https://a.b/path", "http://a.b:99999", "https://u@a.b", "null", "javascript:x")]
    [None, None, None, None, None, None, None]
    >>> bare_origin("http://127.0.0.1:8000", allow_http=False) is None
    True
    """
    if not isinstance(value, str) or len(value) > 300:
        return None
    found = re.fullmatch(r"(https?)://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?",
                         value)
    if found is None:
        return None
    scheme, host, port = found.group(1), found.group(2).lower(), found.group(3)
    if scheme == "http" and not allow_http:
        return None
    if port is not None and not 0 < int(port) < 65536:
        return None
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return None
    elif not _HOST.fullmatch(host):
        return None
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def _allows_http(issuer: str) -> bool:
    """A platform whose issuer is plain http is a test or campus LMS: its pages may be too.
    A platform on https frames the tool only from https pages."""
    return issuer.startswith("http://")


def _valid_origins(stored: str, issuer: str) -> list[str]:
    """The origins of a stored ``frame_origins`` column that are still bare origins (a row
    written by an older version may hold anything a launch's Origin header said)."""
    try:
        values = json.loads(stored)
    except ValueError:
        return []
    allow = _allows_http(issuer)
    found = (bare_origin(one, allow_http=allow) for one in values
             if isinstance(one, str)) if isinstance(values, list) else ()
    return sorted({one for one in found if one is not None})


def add_frame_origin(store: Store, platform: int, seen: str) -> bool:
    """Remember ``seen`` (the Origin of the instructor's validated launch) as a page the
    platform frames the tool in; False (nothing stored) unless it is a bare origin.

    Who may add one: only a launch that validated (signed by the platform, its state bound
    to this browser) by the course's instructor (people.admit). A learner's or a TA's launch
    never does: the Origin header is the browser's, but anyone can replay their own launch
    with any Origin, and an origin stored here lets that site frame every page of the
    course, the instructor's settings included. Canvas frames the tool from the school's
    domain, which the instructor's first launch records.
    """
    with store.database.transaction() as db:
        row = db.execute("SELECT issuer, frame_origins FROM lti_platforms WHERE id = ?",
                         (platform,)).fetchone()
        if row is None:
            return False
        clean = bare_origin(seen, allow_http=_allows_http(row["issuer"]))
        origins = _valid_origins(row["frame_origins"], row["issuer"])
        if clean is None or clean in origins or len(origins) >= MAX_FRAME_ORIGINS:
            return False
        db.execute("UPDATE lti_platforms SET frame_origins = ? WHERE id = ?",
                   (json.dumps(sorted({*origins, clean})), platform))
    return True


def _platforms(rows: Iterable[sqlite3.Row], store: Store) -> list[Platform]:
    deployments: dict[int, list[str]] = {}
    for row in store.database.query("SELECT platform, deployment_id FROM lti_deployments "
                                    "ORDER BY added_at, deployment_id"):
        deployments.setdefault(int(row["platform"]), []).append(row["deployment_id"])
    return [Platform(int(row["id"]), row["issuer"], row["client_id"], row["auth_login_url"],
                     row["auth_token_url"], row["key_set_url"], row["name"],
                     tuple(deployments.get(int(row["id"]), ())),
                     tuple(_valid_origins(row["frame_origins"], row["issuer"])),
                     row["added_at"], row["added_by"])
            for row in rows]


def platforms(store: Store) -> list[Platform]:
    """Every registered platform, oldest first."""
    return _platforms(store.database.query("SELECT * FROM lti_platforms ORDER BY id"), store)


def platform_by_id(store: Store, number: int) -> Platform | None:
    found = _platforms(store.database.query("SELECT * FROM lti_platforms WHERE id = ?",
                                            (number,)), store)
    return found[0] if found else None


def find_platform(store: Store, issuer: str, client_id: str | None) -> Platform | None:
    """The platform of ``issuer`` (and ``client_id``; without one, the issuer's only
    platform). None when it is unknown or the issuer has several and no client id says which."""
    if client_id:
        rows = store.database.query("SELECT * FROM lti_platforms WHERE issuer = ? AND "
                                    "client_id = ?", (issuer, client_id))
    else:
        rows = store.database.query("SELECT * FROM lti_platforms WHERE issuer = ?", (issuer,))
    found = _platforms(rows, store)
    return found[0] if len(found) == 1 else None


def frame_origins(store: Store) -> list[str]:
    """Every origin a registered platform may frame the page in, each a bare origin checked
    again here (see :func:`bare_origin`): only these reach the CSP."""
    seen: set[str] = set()
    for row in store.database.query("SELECT issuer, frame_origins FROM lti_platforms"):
        seen.update(_valid_origins(row["frame_origins"], row["issuer"]))
    return sorted(seen)

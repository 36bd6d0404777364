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

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

from grader.service.lti.addresses import AddressRefused, host_of
from grader.service.lti.errors import RegistrationError
from grader.service.storage import Store
from grader.service.times import utc_now

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


def service_hosts(store: Store, platform: Platform) -> set[str]:
    """The hosts the platform's roster (NRPS) and grade (AGS) services may be on: those of
    its issuer, login, token and key set URLs, and those its registration recorded (the
    registration endpoint's host from its openid-configuration, or a file's
    ``service_hosts``). A service URL elsewhere never gets the platform's token.

    Canvas: issuer canvas.instructure.com, login, token and keys on sso.canvaslms.com, the
    services and the registration endpoint on the school's domain.
    """
    hosts = set()
    for url in (platform.issuer, platform.auth_login_url, platform.auth_token_url,
                platform.key_set_url):
        try:
            hosts.add(host_of(url))
        except AddressRefused:
            continue
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


def add_frame_origin(store: Store, platform: int, seen: str) -> None:
    """Remember ``seen`` (a launch's Origin) as a page the platform frames the tool in."""
    with store.database.transaction() as db:
        row = db.execute("SELECT frame_origins FROM lti_platforms WHERE id = ?",
                         (platform,)).fetchone()
        origins = set(json.loads(row["frame_origins"])) if row is not None else set()
        if row is not None and seen not in origins:
            db.execute("UPDATE lti_platforms SET frame_origins = ? WHERE id = ?",
                       (json.dumps(sorted(origins | {seen})), platform))


def _platforms(rows: Iterable[sqlite3.Row], store: Store) -> list[Platform]:
    deployments: dict[int, list[str]] = {}
    for row in store.database.query("SELECT platform, deployment_id FROM lti_deployments "
                                    "ORDER BY added_at, deployment_id"):
        deployments.setdefault(int(row["platform"]), []).append(row["deployment_id"])
    return [Platform(int(row["id"]), row["issuer"], row["client_id"], row["auth_login_url"],
                     row["auth_token_url"], row["key_set_url"], row["name"],
                     tuple(deployments.get(int(row["id"]), ())),
                     tuple(json.loads(row["frame_origins"])), row["added_at"],
                     row["added_by"])
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
    """Every origin a registered platform may frame the page in."""
    seen: set[str] = set()
    for row in store.database.query("SELECT frame_origins FROM lti_platforms"):
        seen.update(json.loads(row["frame_origins"]))
    return sorted(seen)

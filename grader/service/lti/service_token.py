"""OAuth 2 access tokens for the platform's services (roster, grades), obtained with the
client-credentials grant and a JWT signed by the tool's own key (LTI 1.3's "client
assertion"); cached per platform and scopes until shortly before they expire.

    tokens = ServiceTokens(tool_key, http)
    token = tokens.get(platform, [SCORE_SCOPE])       # "Authorization: Bearer " + token
    tokens.forget(platform, [SCORE_SCOPE])            # after a 401: the next get asks anew
    answer = tokens.call(platform, [SCORE_SCOPE], "the grade service", "POST", url, json=...)

A call goes only to the platform's own hosts (``hosts(platform)``, by default
:func:`grader.service.lti.platforms.service_hosts` without the recorded ones): a roster or
grade URL elsewhere, say one a launch or a roster page's Link named, is refused before any
token is asked for or sent.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, Callable, Iterable

import httpx

from grader.service.lti.addresses import AddressRefused, host_of
from grader.service.lti.errors import PlatformError
from grader.service.lti.platforms import Platform, own_hosts
from grader.service.lti.tool_keys import ToolKey

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_SECONDS = 300
EARLY = 60                   # a token is asked anew this many seconds before it expires


class ServiceTokens:
    """Access tokens by (platform, scopes); ``clock`` is Unix seconds (for tests)."""

    def __init__(self, key: ToolKey, http: httpx.Client, clock: Any = time.time,
                 hosts: Callable[[Platform], set[str]] | None = None) -> None:
        self.key = key
        self.http = http
        self.clock = clock
        self.hosts = hosts or own_hosts
        self._lock = threading.Lock()
        self._tokens: dict[tuple[int, str], tuple[str, float]] = {}

    def assertion(self, platform: Platform) -> str:
        """The signed JWT that proves the request comes from this tool."""
        moment = int(self.clock())
        return self.key.sign({"iss": platform.client_id, "sub": platform.client_id,
                              "aud": platform.auth_token_url, "iat": moment,
                              "exp": moment + ASSERTION_SECONDS,
                              "jti": secrets.token_urlsafe(16)})

    def get(self, platform: Platform, scopes: Iterable[str]) -> str:
        """An access token for ``scopes`` at ``platform``; PlatformError when refused."""
        scope = " ".join(sorted(set(scopes)))
        with self._lock:
            cached = self._tokens.get((platform.id, scope))
            if cached is not None and cached[1] - EARLY > self.clock():
                return cached[0]
        try:
            answer = self.http.post(platform.auth_token_url, data={
                "grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": self.assertion(platform), "scope": scope},
                headers={"accept": "application/json"})
        except httpx.HTTPError as problem:
            raise PlatformError(f"{platform.label}: the token endpoint "
                                f"{platform.auth_token_url} cannot be reached "
                                f"({type(problem).__name__})") from None
        if answer.status_code != 200:
            raise PlatformError(f"{platform.label}: the token endpoint refused the tool "
                                f"({answer.status_code}: {answer.text[:200]}); check that the "
                                "tool's key set URL and client id are registered in the LMS",
                                answer.status_code)
        try:
            data = answer.json()
            token = str(data["access_token"])
            lifetime = float(data.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise PlatformError(f"{platform.label}: the token endpoint's answer is not an "
                                "OAuth 2 token") from None
        with self._lock:
            self._tokens[(platform.id, scope)] = (token, self.clock() + lifetime)
        return token

    def forget(self, platform: Platform, scopes: Iterable[str]) -> None:
        """Drop the cached token (the platform said 401: it expired or was revoked)."""
        with self._lock:
            self._tokens.pop((platform.id, " ".join(sorted(set(scopes)))), None)

    def call(self, platform: Platform, scopes: Iterable[str], service: str, method: str,
             url: str, headers: dict[str, str] | None = None, **send: Any) -> httpx.Response:
        """A call to one of the platform's ``service``s with a token for ``scopes``: the
        answer, whatever its status (a 401 drops the token, so the next call asks anew);
        PlatformError when the platform cannot be reached, or ``url`` is not on its hosts."""
        try:
            on_hosts = host_of(url, f"{service}'s URL") in self.hosts(platform)
        except AddressRefused:
            on_hosts = False
        if not on_hosts:
            raise PlatformError(f"{platform.label}: {service}'s URL {url[:200]} is not on the "
                                "platform's hosts (its issuer's, login's, token's, key set's or "
                                "registration's): not called. Give the host in the platform's "
                                "service_hosts if it really is the LMS's")
        token = self.get(platform, scopes)
        try:
            answer = self.http.request(method, url, headers={
                **(headers or {}), "authorization": f"Bearer {token}"}, **send)
        except httpx.HTTPError as problem:
            raise PlatformError(f"{platform.label}: {service} cannot be reached "
                                f"({type(problem).__name__}); try again later") from None
        if answer.status_code == 401:
            self.forget(platform, scopes)
        return answer


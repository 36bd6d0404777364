"""The platforms' public key sets, fetched over HTTP and cached; fetched again when a
token names a key id the cached set lacks (the platform rotated its keys): the first time
at once, then at most once per ``REFRESH_EVERY`` seconds per set (a flood of made-up key
ids must not become a flood of requests to the platform).

    keysets = KeySets(httpx.Client(timeout=10))
    key_set = keysets.get("https://lms.example/jwks", kid="k1")   # a joserfc KeySet
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from grader.service.lti.errors import LaunchRefused

REFRESH_EVERY = 10.0        # seconds between two fetches of one set for an unknown key id
MAX_AGE = 3600.0            # a set is fetched again after an hour whatever happens


class KeySets:
    """Key sets by URL (thread-safe; ``clock`` is monotonic seconds, for tests)."""

    def __init__(self, http: httpx.Client, clock: Any = time.monotonic) -> None:
        self.http = http
        self.clock = clock
        self._lock = threading.Lock()
        self._sets: dict[str, tuple[KeySet, float]] = {}
        self._refetched: dict[str, float] = {}     # when an unknown kid last fetched a set

    def _fetch(self, url: str) -> KeySet:
        try:
            answer = self.http.get(url, headers={"accept": "application/json"})
        except httpx.HTTPError as problem:
            raise LaunchRefused(f"the platform's key set at {url} cannot be reached "
                                f"({type(problem).__name__}): try the launch again in a "
                                "minute", status=502) from None
        if answer.status_code != 200:
            raise LaunchRefused(f"the platform's key set at {url} answered "
                                f"{answer.status_code}: check key_set_url of the platform",
                                status=502)
        try:
            data = answer.json()
            keys = [key for key in data["keys"] if key.get("kty") == "RSA"]
            return KeySet.import_key_set({"keys": keys})
        except (ValueError, KeyError, TypeError, AttributeError, JoseError):
            raise LaunchRefused(f"the platform's key set at {url} is not a JSON Web Key Set: "
                                "check key_set_url of the platform", status=502) from None

    def get(self, url: str, kid: str | None) -> KeySet:
        """The set at ``url``, holding ``kid`` if the platform has it (fetched again when
        the cached one lacks it). LaunchRefused when the platform does not have it."""
        with self._lock:
            cached = self._sets.get(url)
            moment = self.clock()
            fresh = cached is not None and moment - cached[1] < MAX_AGE
            if fresh and (kid is None or _has(cached[0], kid)):
                return cached[0]
            recently = moment - self._refetched.get(url, -REFRESH_EVERY) < REFRESH_EVERY
            if cached is not None and fresh and recently:
                key_set = cached[0]          # asked again too soon: the cached answer stands
            else:
                key_set = self._fetch(url)
                self._sets[url] = (key_set, moment)
                if cached is not None and fresh:
                    self._refetched[url] = moment
        if kid is not None and not _has(key_set, kid):
            raise LaunchRefused(f"the launch was signed with a key ({kid!r}) that the "
                                "platform's key set does not have: the token is not the "
                                "platform's. Open the assignment in the LMS again")
        return key_set


def _has(key_set: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in key_set.keys)

"""Launches without cookies: the LTI client-side postMessage storage (1EdTech "LTI Client
Side postMessages" and "Platform Storage"), where the LMS keeps the login's state for the
tool inside the browser, so a browser that blocks the frame's cookies (Safari) can still
prove that the launch started in it.

The flow, when the login request names a storage frame (``lti_storage_target``: "_parent"
or a frame of the LMS's page, Canvas's "post_message_forwarding"):

1. ``/lti/login`` answers a small page (templates/lti_storage_put.html, script
   static/lti-storage.js) that posts ``{subject: "lti.put_data", message_id, key, value}``
   (the state) to that frame, addressed to the origin of the platform's authorization URL;
   on ``lti.put_data.response`` from that origin it goes on to the authorization URL. The
   cookie is set too: where it comes back, the launch needs nothing more.
2. ``/lti/launch`` without the cookie answers a page (templates/lti_storage_get.html) that
   holds the id_token and posts ``lti.get_data`` for the state's key; when the platform's
   frame (its origin checked) returns the state, the page POSTs id_token and state to
   ``/lti/launch/checked``, which takes only a request from the tool's own pages (its
   Origin header), so another site cannot skip the check by posting there itself.
3. The session's cookie does not come back in the frame either, so ``/lti/enter/CODE`` then
   offers the page in a new tab (the hand-off code, used once).

Canvas supports it (canvas-lms ui/shared/lti/jquery/subjects/lti.put_data.ts,
lti.get_data.ts; its capabilities name the frame post_message_forwarding). Moodle does not
send lti_storage_target (mod/lti/locallib.php lti_build_login_request, core_ltix's
build_login_request from 4.4: iss, target_link_uri, login_hint, lti_message_hint, client_id,
lti_deployment_id): there a browser that blocks the frame's cookies is told to open the
assignment from Moodle in a new tab (or the activity is set to open in a new window). No
link of the tool can log in again: Moodle's lti_message_hint names a launch id kept in the
user's Moodle session for one login, and Canvas's is a signed token for one launch, so a
fresh login starts only from the LMS's own link.

    storage_target("post_message_forwarding")    # the frame's name, or None
"""

from __future__ import annotations

import re
from typing import Any

STORAGE_KEY_PREFIX = "ttt_state_"       # the key the state is kept under, per launch
_TARGET = re.compile(r"_parent|[A-Za-z0-9_-]{1,64}")


def storage_target(value: Any) -> str | None:
    """The storage frame a login names, when it is a plain frame name; else None (the
    tool then relies on its cookie alone).

    >>> storage_target("post_message_forwarding"), storage_target("_parent")
    ('post_message_forwarding', '_parent')
    >>> storage_target("x'); alert(1)//") is None, storage_target(None) is None
    (True, True)
    """
    return value if isinstance(value, str) and _TARGET.fullmatch(value) else None


def storage_key(state: str) -> str:
    """The key the platform keeps ``state`` under.

    >>> storage_key("abc")
    'ttt_state_abc'
    """
    return STORAGE_KEY_PREFIX + state

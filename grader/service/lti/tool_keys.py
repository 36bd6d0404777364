"""The tool's own RSA key: it signs the JWTs the page sends a platform (the client
assertion of an OAuth 2 token request), and its public half is the key set a platform
fetches (``/lti/jwks.json``).

The key is made on first use in DATA/lti-tool-key.json (a private JWK, 0600, beside
secret.key: back them up together). Nothing here is hand-written cryptography: joserfc
generates, serialises and signs.

    key = ToolKey.load(Path("ttt-course"))
    key.jwks()                                    # {"keys": [{"kty": "RSA", "kid": ...}]}
    assertion = key.sign({"iss": "client", "aud": "https://lms/token", ...})
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.jwk import RSAKey

KEY_FILE = "lti-tool-key.json"
ALGORITHM = "RS256"            # the one LTI 1.3 requires every platform to accept
KEY_BITS = 2048
_making = threading.Lock()     # two first requests at once must not make two keys


class ToolKey:
    """The tool's RSA key pair (``kid``: its id in the key set and in every JWT header)."""

    def __init__(self, key: RSAKey) -> None:
        self.key = key
        self.kid = str(key.kid)

    @classmethod
    def load(cls, data: Path) -> "ToolKey":
        """The key in ``data``, made (0600) on the first call.

        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> ToolKey.load(folder).kid == ToolKey.load(folder).kid
        True
        >>> oct((folder / KEY_FILE).stat().st_mode & 0o777)
        '0o600'
        """
        path = Path(data) / KEY_FILE
        with _making:
            if not path.exists():
                key = RSAKey.generate_key(KEY_BITS, parameters={"use": "sig", "alg": ALGORITHM},
                                          auto_kid=True)
                text = json.dumps(key.as_dict(private=True), sort_keys=True)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as file:
                    file.write(text + "\n")
        return cls(RSAKey.import_key(json.loads(path.read_text())))

    def public_jwk(self) -> dict[str, Any]:
        """The public half, as a JWK (no private member ever leaves this object)."""
        public = dict(self.key.as_dict(private=False))
        public.update({"kid": self.kid, "use": "sig", "alg": ALGORITHM})
        return public

    def jwks(self) -> dict[str, Any]:
        """The tool's key set, as ``/lti/jwks.json`` serves it."""
        return {"keys": [self.public_jwk()]}

    def sign(self, claims: dict[str, Any]) -> str:
        """``claims`` as a JWT signed with this key (RS256, its kid in the header)."""
        return jwt.encode({"alg": ALGORITHM, "kid": self.kid, "typ": "JWT"}, claims, self.key,
                          algorithms=[ALGORITHM])

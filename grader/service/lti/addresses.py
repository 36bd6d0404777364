"""Which addresses the tool may call on a platform's word: URLs parsed (never compared as
text), origins compared by scheme, host and port, and hosts that resolve to a private,
loopback, link-local (169.254.169.254, a cloud's metadata service) or otherwise non-public
address refused unless the course allows them (``serve --lti-allow-private``: tests and
campus networks).

    check_url("https://canvas.instructure.com/api/lti/security/jwks", "jwks_uri")
    same_origin("https://lms.example/a", "https://LMS.example:443/b")     # True
    host_of("http://lms.example@127.0.0.1:8000/")                        # refused: userinfo

The address a name resolves to is checked when the URL is checked (a name that resolves to
another address later, DNS rebinding, is not caught here; redirects are never followed).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import Callable
from urllib.parse import SplitResult, urlsplit

from grader.service.lti.errors import LtiError

DEFAULT_PORTS = {"http": 80, "https": 443}
Resolver = Callable[[str], list[str]]


class AddressRefused(LtiError):
    """A URL the tool will not call: not http(s), with userinfo, or on a non-public address."""


def _parts(url: str, what: str) -> SplitResult:
    try:
        parts = urlsplit(str(url).strip())
        parts.port                                    # raises on a port that is not one
    except ValueError:
        raise AddressRefused(f"{what} {url!r} is not a URL") from None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise AddressRefused(f"{what} must be an http(s) URL, not {url!r}")
    if "@" in parts.netloc:
        # http://lms.example@127.0.0.1/ is 127.0.0.1 with a user name: the text before
        # the @ is what a reader sees, the host after it is what is called.
        raise AddressRefused(f"{what} {url!r} holds a user name or password before its "
                             "host: refused (an LMS's URLs never do)")
    return parts


def origin_of(url: str, what: str = "the URL") -> tuple[str, str, int]:
    """(scheme, host, port) of ``url``, the host lower-case and the port explicit.

    >>> origin_of("https://LMS.example/mod/lti/auth.php")
    ('https', 'lms.example', 443)
    """
    parts = _parts(url, what)
    host = parts.hostname or ""
    return parts.scheme, host.lower(), parts.port or DEFAULT_PORTS[parts.scheme]


def host_of(url: str, what: str = "the URL") -> str:
    """The host (lower-case, with its port when not the scheme's default) of ``url``.

    >>> host_of("https://school.instructure.com:443/api/lti/courses/1/names_and_roles")
    'school.instructure.com'
    >>> host_of("http://127.0.0.1:8123/x")
    '127.0.0.1:8123'
    """
    scheme, host, port = origin_of(url, what)
    return host if port == DEFAULT_PORTS[scheme] else f"{host}:{port}"


def same_origin(one: str, other: str) -> bool:
    """Whether the two URLs have the same scheme, host and port (False if either is not a
    URL the tool would call).

    >>> same_origin("http://lms.example@127.0.0.1:8000/x", "http://lms.example")
    False
    """
    try:
        return origin_of(one) == origin_of(other)
    except AddressRefused:
        return False


def _resolve(host: str) -> list[str]:
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        return []
    return [str(info[4][0]) for info in found]


def is_public(address: str) -> bool:
    """Whether ``address`` (an IP address) is on the public internet.

    >>> [is_public(a) for a in ("8.8.8.8", "127.0.0.1", "10.1.2.3", "169.254.169.254", "::1")]
    [True, False, False, False, False]
    """
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local)


def check_url(url: str, what: str, allow_private: bool = False,
              resolve: Resolver = _resolve) -> str:
    """``url`` when the tool may call it: an http(s) URL without userinfo whose host (every
    address it resolves to) is public, or any host when ``allow_private``. AddressRefused
    otherwise, saying what to do.
    """
    parts = _parts(url, what)
    if allow_private:
        return url
    host = parts.hostname or ""
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        addresses = resolve(host)
    if not addresses:
        raise AddressRefused(f"{what} {url}: the name {host} does not resolve")
    private = [address for address in addresses if not is_public(address)]
    if private:
        raise AddressRefused(
            f"{what} {url} is on a private, loopback or link-local address ({private[0]}): "
            "refused. An LMS on a campus network is allowed by starting the server with "
            "--lti-allow-private")
    return url


_HOST = re.compile(r"[a-z0-9.-]+|\[[0-9a-f:.]+\]")


def csp_origin(url: str) -> str | None:
    """``url``'s origin written for a Content-Security-Policy source (None when it has none
    that can be written safely: a host with other characters than a name's or an address's).

    >>> csp_origin("https://school.instructure.com/api/lti/security/openid-configuration?x=1")
    'https://school.instructure.com'
    >>> csp_origin("https://a;script-src*/x") is None
    True
    """
    try:
        scheme, host, port = origin_of(url)
    except AddressRefused:
        return None
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    if not _HOST.fullmatch(host):
        return None
    return f"{scheme}://{host}" if port == DEFAULT_PORTS[scheme] else f"{scheme}://{host}:{port}"

"""Running the submission page's application under uvicorn, on a socket already listening.

Two things uvicorn does not do by itself here, both in the connection's protocol
(:class:`PageProtocol`, uvicorn's h11 protocol with two additions):

- **TCP_NODELAY on every accepted connection.** asyncio turns Nagle's algorithm off only on
  sockets whose ``proto`` is ``IPPROTO_TCP``; a listener from ``socket.create_server`` has
  ``proto`` 0, and so has every connection it accepts. uvicorn writes a response's head and
  its body in two ``write`` calls; with Nagle on, the body waits for the client's ACK of the
  head, which the client delays (~40 ms on Linux) on a connection past its first exchange.
  So every request after the first on a kept-alive connection took ~44 ms (a browser's polls
  all do) against 0.5 ms on a fresh one.
- **A deadline for the request's head.** A connection must have sent its whole request line
  and headers within ``header_timeout`` seconds of opening (or, on a kept-alive connection,
  of the next request's first byte), else it is closed: an idle or trickling socket no longer
  holds a connection for as long as the client likes. uvicorn's ``timeout_keep_alive`` covers
  a kept-alive connection that sends nothing at all.

    listener = socket.create_server(("127.0.0.1", 8000))
    run(create_app(settings), listener, quiet=True)          # returns when stopped (SIGINT/TERM)

To run it from a test, :func:`make_server` gives the ``uvicorn.Server`` (``server.run(sockets=
[listener])`` in a thread; ``server.should_exit = True`` stops it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("grader.service")

HEADER_TIMEOUT = 5.0             # seconds a connection has to send its request line and headers
# Seconds an idle kept-alive connection stays open: longer than the longest pause a waiting
# page leaves between polls (poll_after: at most 10 s), so its polls keep their connection
# instead of racing the server's close (uvicorn's 5 s: a poll sent as the server closed got
# no answer, "Server disconnected", twice in 25,000 polls of bench_service).
KEEP_ALIVE_TIMEOUT = 15
GRACEFUL_SHUTDOWN_SECONDS = 20   # requests under way at a stop may finish in this time


class PageProtocol(H11Protocol):
    """uvicorn's h11 protocol, with TCP_NODELAY and a deadline for each request's head.

    ``header_timeout`` is a class attribute: :func:`protocol_class` makes a subclass with the
    value a server uses (uvicorn builds the protocol itself, from the class).

    >>> protocol_class(2.5).header_timeout
    2.5
    """

    header_timeout: float = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        set_nodelay(transport.get_extra_info("socket"))
        self._arm_head_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._waiting_for_head():
            # Bytes of a request whose head is not complete yet: on a kept-alive connection
            # this is the next request's start (uvicorn's keep-alive timer was just cancelled).
            if self._head_deadline is None:
                self._arm_head_deadline()
        else:
            self._cancel_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def _waiting_for_head(self) -> bool:
        """No request is being answered: what arrives is (part of) the next request's head."""
        return self.cycle is None or self.cycle.response_complete

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return
        log.debug("closed a connection that sent no request head within %g s (%s)",
                  self.header_timeout, self.client)
        self.transport.close()


def protocol_class(header_timeout: float = HEADER_TIMEOUT) -> type[PageProtocol]:
    """:class:`PageProtocol` with this deadline for a request's head (seconds)."""
    return type("PageProtocol", (PageProtocol,), {"header_timeout": float(header_timeout)})


def set_nodelay(sock: Any) -> None:
    """Turn Nagle's algorithm off on a TCP socket (anything else is left as it is).

    >>> set_nodelay(None)
    """
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    with contextlib.suppress(OSError):   # a socket already closed by its peer
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def make_server(application: Any, *, quiet: bool = False, ssl_keyfile: Path | None = None,
                ssl_certfile: Path | None = None,
                header_timeout: float = HEADER_TIMEOUT) -> uvicorn.Server:
    """The uvicorn server for ``application`` (not started: ``.run(sockets=[listener])``).

    >>> make_server(object(), quiet=True).config.timeout_keep_alive
    15
    """
    config = uvicorn.Config(application, lifespan="on", access_log=False,
                            http=protocol_class(header_timeout),
                            timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
                            log_level="warning" if quiet else "info",
                            ssl_keyfile=str(ssl_keyfile) if ssl_keyfile else None,
                            ssl_certfile=str(ssl_certfile) if ssl_certfile else None,
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS)
    return uvicorn.Server(config)


def run(application: Any, listener: socket.socket, *, quiet: bool = False,
        ssl_keyfile: Path | None = None, ssl_certfile: Path | None = None,
        header_timeout: float = HEADER_TIMEOUT) -> None:
    """Serve ``application`` on ``listener`` until SIGINT or SIGTERM (then stop cleanly)."""
    server = make_server(application, quiet=quiet, ssl_keyfile=ssl_keyfile,
                         ssl_certfile=ssl_certfile, header_timeout=header_timeout)
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:     # uvicorn stopped cleanly, then passed the signal on
        pass

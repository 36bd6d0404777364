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
- **A deadline for the request's body.** Once its head is in, a request must send its whole
  body within ``body_timeout`` seconds (30: a 1 MB hand-in at 35 KB/s), else it is answered
  408 and closed. Before, a body trickled a byte a second held its connection (and its file
  descriptor) for as long as the client liked: 400 of them starved the others.
- **A cap on open connections.** At ``max_connections`` (half the process's file limit, at
  most 1000), a new connection takes the place of the one that has waited longest (over
  ``GIVE_WAY_AFTER`` seconds) on its client: idle, or sending its head or body slowly; it
  is closed (408 if its body was coming). With none such, or past half of the connections
  from one address (not the loopback: a reverse proxy on this machine carries every
  client), the new connection's request is answered 503 and it is closed; it gets a short
  head deadline meanwhile (half as many again past the cap are closed at once, unanswered).
  So the server keeps file descriptors for its database and its
  grading runs, slow connections cannot keep a quick one out, and one client cannot take
  every connection. (uvicorn's ``limit_concurrency`` refuses the newcomer instead, and logs
  a warning per request: a flood of them is a flood of log lines.)
- **Out of file descriptors, said once a minute.** asyncio logs a traceback each time
  ``accept`` fails with EMFILE, and every request that then fails logs one more: the log
  grew 50 MB. Such records pass once per ``LOG_INTERVAL`` with a count of the others.

    listener = socket.create_server(("127.0.0.1", 8000))
    run(create_app(settings), listener, quiet=True)          # returns when stopped (SIGINT/TERM)

To run it from a test, :func:`make_server` gives the ``uvicorn.Server`` (``server.run(sockets=
[listener])`` in a thread; ``server.should_exit = True`` stops it).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("grader.service")

HEADER_TIMEOUT = 5.0             # seconds a connection has to send its request line and headers
# Seconds an idle kept-alive connection stays open: longer than the longest pause a waiting
# page leaves between polls (poll_after: at most 10 s), so its polls keep their connection
# instead of racing the server's close (uvicorn's 5 s: a poll sent as the server closed got
# no answer, "Server disconnected", twice in 25,000 polls of bench_service).
KEEP_ALIVE_TIMEOUT = 15
GRACEFUL_SHUTDOWN_SECONDS = 20   # requests under way at a stop may finish in this time
BODY_TIMEOUT = 30.0              # seconds a request has, after its head, to send its body
BUSY_HEADER_TIMEOUT = 1.0        # the head deadline of a connection that will be refused
GIVE_WAY_AFTER = 0.25            # at the cap, a connection waiting this long may be closed
WANTED_FILES = 8192              # the soft file limit the server raises itself to (if allowed)
MAX_CONNECTIONS = 1000           # never more open connections than this (nor half the files)
LOG_INTERVAL = 60.0              # "out of file descriptors" is logged once in this time
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
             b"connection: close\r\ncontent-length: 58\r\n\r\n"
             b"the request's body came too slowly: send it again, faster\n")


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raise this process's soft limit on open files towards ``wanted`` as far as the hard
    limit allows (systemd and most shells start services at a soft 1024 under a hard limit
    of 4096 or more); the soft limit now.

    >>> raise_file_limit(0) == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    True
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def connection_cap(file_limit: int | None = None) -> int:
    """The most connections the server keeps open: half the process's file limit (the other
    half is for the database, the grading runs' pipes and files), at least 16, at most
    MAX_CONNECTIONS.

    >>> connection_cap(1024), connection_cap(256), connection_cap(1 << 20), connection_cap(8)
    (512, 128, 1000, 16)
    """
    if file_limit is None:
        file_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if file_limit == resource.RLIM_INFINITY:
            file_limit = 2 * MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, file_limit // 2))


def is_loopback(host: str | None) -> bool:
    """A peer on this machine (a reverse proxy, a test), which no per-address cap applies to.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("10.0.0.5")
    (True, True, False)
    """
    return bool(host) and (host.startswith("127.") or host in ("::1", "localhost"))


class Occasional:
    """Says a repeated message once per ``interval`` seconds, with how many were left unsaid.

    >>> once = Occasional(60.0, clock=iter([0.0, 1.0, 2.0, 61.0]).__next__)
    >>> [once.due() for _ in range(4)]
    [0, None, None, 2]
    """

    def __init__(self, interval: float = LOG_INTERVAL,
                 clock: Any = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.last: float | None = None
        self.unsaid = 0
        self.lock = threading.Lock()

    def due(self) -> int | None:
        """None: stay quiet (counted); else say it now, N similar ones were left unsaid."""
        with self.lock:
            moment = self.clock()
            if self.last is not None and moment - self.last < self.interval:
                self.unsaid += 1
                return None
            self.last, unsaid, self.unsaid = moment, self.unsaid, 0
            return unsaid


def out_of_files(record: logging.LogRecord) -> bool:
    """A log record about running out of file descriptors (EMFILE, ENFILE)."""
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        return True
    return "Too many open files" in record.getMessage()


class OutOfFilesFilter(logging.Filter):
    """Lets one "out of file descriptors" record through per interval (with the count of
    those held back), every other record always."""

    def __init__(self, interval: float = LOG_INTERVAL) -> None:
        super().__init__()
        self.occasional = Occasional(interval)

    def filter(self, record: logging.LogRecord) -> bool:
        if not out_of_files(record):
            return True
        unsaid = self.occasional.due()
        if unsaid is None:
            return False
        if unsaid:
            record.msg = f"{record.msg} ({unsaid} more like it in the last minutes not logged)"
        return True


def quiet_out_of_files(loggers: tuple[str, ...] = ("", "uvicorn", "uvicorn.error")) -> None:
    """Put one :class:`OutOfFilesFilter` on the handlers of ``loggers`` (once each)."""
    shared = OutOfFilesFilter()
    for name in loggers:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(one, OutOfFilesFilter) for one in handler.filters):
                handler.addFilter(shared)


class PageProtocol(H11Protocol):
    """uvicorn's h11 protocol, with TCP_NODELAY, a deadline for each request's head and
    body, and a cap on open connections (in all, and from one address).

    The limits are class attributes: :func:`protocol_class` makes a subclass with the values
    a server uses (uvicorn builds the protocol itself, from the class).

    >>> protocol_class(2.5).header_timeout, protocol_class(body_timeout=9).body_timeout
    (2.5, 9.0)
    """

    header_timeout: float = HEADER_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    refusals = Occasional()          # "connections refused" is logged once a minute

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._body_deadline: asyncio.TimerHandle | None = None
        self._body_cycle: Any = None
        self.waiting_since: float | None = None   # waiting on the client (None: on the app)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        set_nodelay(transport.get_extra_info("socket"))
        self.waiting_since = self.loop.time()
        if len(self.connections) > self.max_connections * 3 // 2:
            # Far past the cap (a flood of new connections, none able to give way): closed
            # at once, so that the process never runs out of descriptors for accept itself.
            self.waiting_since = None
            self.transport.abort()
            return
        why = self._over_cap()
        if why:
            # uvicorn reads the head, then this connection's app answers 503 and closes it;
            # the head gets little time (each refused connection still holds a descriptor).
            self.app = service_unavailable
            unsaid = self.refusals.due()
            if unsaid is not None:
                log.warning("refused connections with 503: %s%s", why,
                            f" ({unsaid} more since the last such line)" if unsaid else "")
            self._arm_head_deadline(BUSY_HEADER_TIMEOUT)
            return
        self._arm_head_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._waiting_for_head():
            # Bytes of a request whose head is not complete yet: on a kept-alive connection
            # this is the next request's start (uvicorn's keep-alive timer was just cancelled).
            if self._head_deadline is None:
                self._arm_head_deadline()
            return
        self._cancel_head_deadline()
        if self.cycle.more_body and self._body_cycle is not self.cycle:
            self._arm_body_deadline()            # a head just ended: its body has its time
        elif not self.cycle.more_body:
            self._cancel_body_deadline()
            self.waiting_since = None            # the whole request is in: the app's turn

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.waiting_since = self.loop.time()     # idle until the next request

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        self._cancel_body_deadline()
        super().connection_lost(exc)

    def _over_cap(self) -> str:
        """Why this new connection is one too many ("" when it is not, or when the slowest
        connection gave way to it)."""
        host = self.client[0] if self.client else None
        if host is not None and not is_loopback(host):
            same = sum(1 for other in list(self.connections)
                       if other.client and other.client[0] == host)
            if same > self.max_connections // 2:
                return f"{host} has {same - 1} connections open (half of the server's most)"
        if len(self.connections) <= self.max_connections:
            return ""
        slowest = self._slowest()
        if slowest is None:
            return (f"{self.max_connections} connections are open (the server's most), "
                    "none of them waiting on its client")
        slowest.give_way()
        return ""

    def _slowest(self) -> "PageProtocol | None":
        """The open connection that has waited longest on its client, if over GIVE_WAY_AFTER."""
        oldest, found = self.loop.time() - GIVE_WAY_AFTER, None
        for other in list(self.connections):
            since = getattr(other, "waiting_since", None)
            if other is not self and since is not None and since <= oldest and \
                    not other.transport.is_closing():
                oldest, found = since, other
        return found

    def give_way(self) -> None:
        """Close this connection (waiting on its client) for a new one: a request whose body
        was coming gets 408, and the application hears that the client left."""
        self.waiting_since = None
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if not cycle.response_started:
                self.transport.write(TIMED_OUT)
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def _arm_body_deadline(self) -> None:
        self._cancel_body_deadline()
        self._body_cycle = self.cycle
        self._body_deadline = self.loop.call_later(self.body_timeout, self._body_too_slow)

    def _cancel_body_deadline(self) -> None:
        if self._body_deadline is not None:
            self._body_deadline.cancel()
            self._body_deadline = None

    def _body_too_slow(self) -> None:
        self._body_deadline = None
        cycle = self._body_cycle
        if self.transport.is_closing() or cycle is not self.cycle or not cycle.more_body:
            return
        if self.flow.read_paused and not cycle.response_complete:
            # uvicorn stopped reading because the application has not taken what came yet:
            # the wait is the server's, not the client's
            self._arm_body_deadline()
            return
        log.debug("closed a connection whose request body did not arrive within %g s (%s)",
                  self.body_timeout, self.client)
        # The application, waiting for the body, hears that the client left (Starlette's
        # ClientDisconnect); whatever it answers is dropped, as for a client that went away.
        self.give_way()

    def _waiting_for_head(self) -> bool:
        """No request is being answered: what arrives is (part of) the next request's head."""
        return self.cycle is None or self.cycle.response_complete

    def _arm_head_deadline(self, seconds: float | None = None) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(
            self.header_timeout if seconds is None else seconds, self._head_too_slow)

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


def protocol_class(header_timeout: float = HEADER_TIMEOUT, body_timeout: float = BODY_TIMEOUT,
                   max_connections: int | None = None) -> type[PageProtocol]:
    """:class:`PageProtocol` with these deadlines for a request's head and body (seconds)
    and this cap on open connections (default: :func:`connection_cap`)."""
    return type("PageProtocol", (PageProtocol,), {
        "header_timeout": float(header_timeout), "body_timeout": float(body_timeout),
        "max_connections": connection_cap() if max_connections is None else max_connections})


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
                header_timeout: float = HEADER_TIMEOUT, body_timeout: float = BODY_TIMEOUT,
                max_connections: int | None = None) -> uvicorn.Server:
    """The uvicorn server for ``application`` (not started: ``.run(sockets=[listener])``).

    >>> make_server(object(), quiet=True).config.timeout_keep_alive
    15
    """
    config = uvicorn.Config(application, lifespan="on", access_log=False,
                            http=protocol_class(header_timeout, body_timeout, max_connections),
                            timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
                            log_level="warning" if quiet else "info",
                            ssl_keyfile=str(ssl_keyfile) if ssl_keyfile else None,
                            ssl_certfile=str(ssl_certfile) if ssl_certfile else None,
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS)
    quiet_out_of_files()            # uvicorn's Config has just set its loggers' handlers
    return PageServer(config)


class PageServer(uvicorn.Server):
    """uvicorn's server, whose event loop says a failed ``accept`` once per interval.

    asyncio stops accepting for a second when ``accept`` fails for want of descriptors, and
    logs a traceback each time; the :class:`OutOfFilesFilter` on the handlers holds most of
    them back, this gives the one that passes a plain message."""

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            problem = context.get("exception")
            if isinstance(problem, OSError) and problem.errno in (errno.EMFILE, errno.ENFILE):
                log.error("cannot accept a connection: %s (the process's file limit; "
                          "raise it with ulimit -n, or LimitNOFILE= in the systemd unit)",
                          problem.strerror)
                return
            loop.default_exception_handler(context)

        loop.set_exception_handler(handler)
        await super().serve(sockets)


def run(application: Any, listener: socket.socket, *, quiet: bool = False,
        ssl_keyfile: Path | None = None, ssl_certfile: Path | None = None,
        header_timeout: float = HEADER_TIMEOUT) -> None:
    """Serve ``application`` on ``listener`` until SIGINT or SIGTERM (then stop cleanly)."""
    quiet_out_of_files()            # the service's own handlers (command's basicConfig)
    raise_file_limit()              # before make_server: the connection cap follows it
    server = make_server(application, quiet=quiet, ssl_keyfile=ssl_keyfile,
                         ssl_certfile=ssl_certfile, header_timeout=header_timeout)
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:     # uvicorn stopped cleanly, then passed the signal on
        pass

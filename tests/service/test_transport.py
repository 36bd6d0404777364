"""The page's connections (``grader.service.server``): raw sockets on 127.0.0.1 against a small
Starlette application served as ``grader serve`` serves its own.

A connection that sends no complete request head in time is closed, while the others are
answered; every accepted connection has Nagle's algorithm off (a kept-alive connection's
answers are not held back until the client's delayed ACK). No timing is asserted beyond
"closed within a generous bound".
"""

from __future__ import annotations

import socket
import time
from typing import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from grader.service import server as page_server
from service_helpers import serve_in_thread

HEADER_TIMEOUT = 1.0      # the deadline under test: short, so that the tests are short
CLOSED_WITHIN = 15.0      # what the tests allow for it on a busy machine
REQUEST = b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def ping(request: Request) -> JSONResponse:
    return JSONResponse({"status": "queued"})


@pytest.fixture
def served() -> Iterator[tuple[int, object]]:
    """(port, uvicorn server) of the tiny application, in a thread; stopped at the end."""
    application = Starlette(routes=[Route("/ping", ping)])
    with serve_in_thread(application, header_timeout=HEADER_TIMEOUT) as port_and_server:
        yield port_and_server


def connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=CLOSED_WITHIN)
    return connection


def answer(connection: socket.socket) -> bytes:
    """One whole response (head and Content-Length body) read from ``connection``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, "the server closed the connection instead of answering"
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += connection.recv(65536)
    return head.split(b"\r\n", 1)[0] + b" " + body


def closed_by_server(connection: socket.socket) -> bool:
    """True when the server closes ``connection`` (within CLOSED_WITHIN), without answering."""
    try:
        return connection.recv(65536) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def test_a_connection_without_a_request_head_is_closed_while_others_are_answered(served):
    port, _ = served
    silent = connect(port)                                   # sends nothing
    half_line = connect(port)
    half_line.sendall(b"GET /pi")                            # half a request line
    half_head = connect(port)
    half_head.sendall(b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # no blank line
    with connect(port) as normal:
        normal.sendall(REQUEST)
        assert answer(normal) == b'HTTP/1.1 200 OK {"status":"queued"}'
    for connection in (silent, half_line, half_head):
        with connection:
            assert closed_by_server(connection)


def test_a_kept_alive_connection_that_trickles_its_next_request_is_closed(served):
    port, _ = served
    with connect(port) as connection:
        connection.sendall(REQUEST)
        assert answer(connection).startswith(b"HTTP/1.1 200")
        connection.sendall(b"GET /ping HTTP/1.1\r\n")       # the next one never ends
        assert closed_by_server(connection)


def test_a_head_sent_in_pieces_in_time_is_answered(served):
    port, _ = served
    with connect(port) as connection:
        for piece in (REQUEST[:7], REQUEST[7:20], REQUEST[20:]):
            connection.sendall(piece)
            time.sleep(HEADER_TIMEOUT / 10)
        assert answer(connection).startswith(b"HTTP/1.1 200")
        for _ in range(3):                                   # and the connection is kept
            connection.sendall(REQUEST)
            assert answer(connection).startswith(b"HTTP/1.1 200")


def test_every_accepted_connection_has_nagle_off(served):
    # A listener from socket.create_server has proto 0, so asyncio does not set TCP_NODELAY
    # on what it accepts; with Nagle on, a kept-alive connection's answer body waits for the
    # client's delayed ACK of its head (~40 ms a request).
    port, server = served
    with connect(port) as connection:
        for _ in range(2):
            connection.sendall(REQUEST)
            assert answer(connection).startswith(b"HTTP/1.1 200")
        sockets = [protocol.transport.get_extra_info("socket")
                   for protocol in list(server.server_state.connections)]
        assert sockets and all(
            sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for sock in sockets)


def test_the_class_carries_its_deadline():
    assert page_server.protocol_class(2.5).header_timeout == 2.5
    assert issubclass(page_server.protocol_class(), page_server.PageProtocol)

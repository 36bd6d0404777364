"""The server's limits (``grader.service.server``): a request body that comes too slowly is
cut, the open connections are capped, running out of file descriptors is logged once a
minute, and a client that leaves mid-upload leaves one log line, no traceback.

Raw sockets on 127.0.0.1 against a small Starlette application served as ``grader serve``
serves its own (and, for the upload, the real server). No timing is asserted beyond "closed
within a generous bound".
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from typing import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from grader.service import server as page_server
from service_helpers import FAST, add_students, serve_in_thread

BODY_TIMEOUT = 1.0        # the deadline under test: short, so that the tests are short
CLOSED_WITHIN = 20.0      # what the tests allow for it on a busy machine
CAP = 3                   # the connection cap under test
PING = b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
SLOW_POST = (b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             b"Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n")


async def ping(request: Request) -> JSONResponse:
    return JSONResponse({"status": "queued"})


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"length": len(await request.body())})


RELEASE = threading.Event()


async def hold(request: Request) -> JSONResponse:
    """Busy on the server's side (not waiting on its client) until the test says."""
    for _ in range(int(CLOSED_WITHIN / 0.02)):
        if RELEASE.is_set():
            break
        await asyncio.sleep(0.02)
    return JSONResponse({"held": True})


@pytest.fixture
def served() -> Iterator[int]:
    """The port of the tiny application, served in a thread with a short body deadline, a
    long head deadline (the idle connections below stay open) and a cap of CAP connections."""
    application = Starlette(routes=[Route("/ping", ping), Route("/hold", hold),
                                    Route("/echo", echo, methods=["POST"])])
    with serve_in_thread(application, header_timeout=60.0, body_timeout=BODY_TIMEOUT,
                         max_connections=CAP) as (port, _):
        yield port


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=CLOSED_WITHIN)


def read_all(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (b"" if it never does)."""
    data = b""
    try:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return data
            data += chunk
    except ConnectionResetError:
        return data
    except socket.timeout:
        return b""


def status_of(connection: socket.socket, request: bytes = PING) -> bytes:
    connection.sendall(request)
    data = b""
    while b"\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, "the server closed the connection without answering"
        data += chunk
    return data.split(b"\r\n", 1)[0]


def test_a_trickled_body_is_cut_after_its_deadline_while_others_are_answered(served):
    port = served
    with connect(port) as slow:
        slow.sendall(SLOW_POST + b"a")                  # one byte of 100,000, then a trickle
        with connect(port) as other:
            assert status_of(other) == b"HTTP/1.1 200 OK"
        for _ in range(3):
            time.sleep(BODY_TIMEOUT / 4)
            slow.sendall(b"a")
        answer = read_all(slow)
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout"), answer
    assert b"too slowly" in answer
    with connect(port) as after:                        # and the server is still there
        assert status_of(after) == b"HTTP/1.1 200 OK"


def test_a_body_sent_in_time_is_read_whole(served):
    port = served
    with connect(port) as connection:
        body = b"x" * 100000
        head = SLOW_POST.replace(b"100000", str(len(body)).encode())
        connection.sendall(head + body[:50000])
        time.sleep(BODY_TIMEOUT / 10)
        connection.sendall(body[50000:])
        assert status_of(connection, b"") == b"HTTP/1.1 200 OK"


def test_past_the_connection_cap_a_new_connection_gets_503_then_the_server_serves_again(
        served):
    port = served
    RELEASE.clear()
    busy = [connect(port) for _ in range(CAP)]         # every connection, the server busy
    for connection in busy:
        connection.sendall(b"GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    time.sleep(0.2)                                    # accepted by the server's loop
    try:
        with connect(port) as one_too_many:
            assert status_of(one_too_many) == b"HTTP/1.1 503 Service Unavailable"
            assert read_all(one_too_many) is not None   # and it is closed
    finally:
        RELEASE.set()
        for connection in busy:
            assert status_of(connection, b"") == b"HTTP/1.1 200 OK"
            connection.close()
    give_up = time.monotonic() + CLOSED_WITHIN
    while True:                                        # the server sees the closes
        with connect(port) as again:
            status = status_of(again)
        if status == b"HTTP/1.1 200 OK" or time.monotonic() > give_up:
            break
        time.sleep(0.1)
    assert status == b"HTTP/1.1 200 OK"


def test_at_the_cap_the_connection_waiting_longest_on_its_client_gives_way(
        served, monkeypatch):
    port = served
    monkeypatch.setattr(page_server, "GIVE_WAY_AFTER", 0.1)
    slow = []
    for _ in range(CAP):                               # every connection, each trickling
        connection = connect(port)
        connection.sendall(SLOW_POST + b"a")
        slow.append(connection)
        time.sleep(0.05)
    time.sleep(0.3)
    try:
        with connect(port) as quick:                   # takes the place of the first one
            assert status_of(quick) == b"HTTP/1.1 200 OK"
        assert read_all(slow[0]).startswith(b"HTTP/1.1 408 Request Timeout")
    finally:
        for connection in slow:
            connection.close()


def test_the_cap_follows_the_file_limit():
    assert page_server.connection_cap(1024) == 512
    assert page_server.protocol_class(max_connections=7).max_connections == 7


def test_running_out_of_file_descriptors_is_logged_once_per_interval():
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(page_server.OutOfFilesFilter())
    logger = logging.getLogger("test_server_limits.out_of_files")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        for number in range(500):
            try:
                raise OSError(errno.EMFILE, "Too many open files")
            except OSError:
                logger.exception("socket.accept() out of system resource")
            logger.error("error %d on GET /: [Errno 24] Too many open files", number)
        logger.info("an ordinary line")
    finally:
        logger.removeHandler(handler)
    assert [record.getMessage() for record in records] == [
        "socket.accept() out of system resource", "an ordinary line"]


# --- a client that leaves mid-upload, against the real server ------------------------------

def _upload_head(path: str, token: str, extra: bytes = b"") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 200000\r\n"
            ).encode() + extra + b"\r\n" + (
            b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="mm_player.py"'
            b"\r\nContent-Type: text/x-python\r\n\r\n") + FAST.read_bytes()[:2000]


def test_an_upload_the_client_abandons_leaves_one_log_line_and_no_traceback(serve, tmp_path):
    data = tmp_path / "course"
    add_students(data, [("ada", "Ada", "")])
    server = serve(data, "--jobs", "1")
    port = int(server.url.rsplit(":", 1)[1])
    browser = server.browser("ada")
    home = browser.get("/").text
    csrf = home.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    cookie = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())
    heads = [_upload_head("/api/submissions", server.token("ada"), f"X-CSRF-Token: {csrf}\r\n"
                          .encode()),
             _upload_head("/submit", "", f"Cookie: {cookie}\r\n".encode())]
    for head in heads:
        with connect(port) as connection:
            connection.sendall(head)
            time.sleep(0.5)                            # the server is reading the body
    assert browser.get("/").status_code == 200         # the server serves on
    server.stop()                                      # and has logged all it will
    log = server.log.read_text()
    # one line (a flood of them: one line in ten seconds, with the count of the others)
    assert log.count("closed the connection before its request ended") == 1, log
    assert "Traceback" not in log and "Exception in ASGI" not in log, log

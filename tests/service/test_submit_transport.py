"""``python3 -m student submit`` and the way to the page: the link's token never goes to
another address on a redirect, and a file larger than the page takes is said to be too
large (its size and the limit) instead of "Cannot reach the submission page ... Broken
pipe". The page is the course's application served without grading, or a small local
server that redirects (to another port: another origin) or answers 413 as a proxy would.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

from service_helpers import serve_without_grading
from test_hand_in_door import Course, course_data
from test_submit import FAST, submit

TOKEN = "Tok3n_abc"


@contextmanager
def local_server(answer) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A server on 127.0.0.1 whose every request ``answer(handler)`` answers; its URL and
    the headers of each request it got."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append({"path": self.path, **dict(self.headers)})
            answer(self)

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def reply(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"",
          kind: str = "application/json", **headers: str) -> None:
    """Read the request's body, then answer ``status``."""
    length = int(handler.headers.get("content-length") or 0)
    handler.rfile.read(length)
    handler.send_response(status)
    for name, value in {"content-type": kind, "content-length": str(len(body)),
                        **headers}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def test_a_redirect_to_another_origin_is_not_followed_and_gets_no_token(tmp_path: Path):
    """Before: urllib followed the page's redirect with the Authorization header."""
    with local_server(lambda handler: reply(handler, 200, b"{}")) as (other, reached):
        def elsewhere(handler: BaseHTTPRequestHandler) -> None:
            reply(handler, 302, location=f"{other}{handler.path}")

        with local_server(elsewhere) as (page, asked):
            done = submit("--link", f"{page}/s/{TOKEN}", "--file", str(FAST),
                          config=tmp_path / "link.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"sent the request on to {other}: not followed" in done.stderr
    assert "your link's token was not sent there" in done.stderr
    assert reached == []                                      # not a request, not a token
    assert asked and all(one["Authorization"] == f"Bearer {TOKEN}" for one in asked)


def test_a_file_larger_than_the_page_takes_is_too_large_not_a_broken_pipe(tmp_path: Path):
    """Before: a 5 MB file was "Cannot reach the submission page ... Broken pipe"."""
    course = Course(tmp_path / "course")
    big = tmp_path / "mm_player.py"
    big.write_bytes(FAST.read_bytes() + b"#" * 5_000_000)
    try:
        with serve_without_grading(course.app) as url:
            before = course_data(course.store)
            done = submit("--link", f"{url}/s/{course.store.student_token('ada')}",
                          "--file", str(big), config=tmp_path / "link.json")
            assert course_data(course.store) == before
    finally:
        course.store.close()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Not handed in: mm_player.py is too large (4.8 MiB; the page's limit is 256 KiB)" \
        in done.stderr
    assert "Cannot reach" not in done.stderr


def test_a_413_answer_is_read_as_too_large(tmp_path: Path):
    """A proxy's 413 (an HTML page), from a page that does not say its limit."""
    def proxy(handler: BaseHTTPRequestHandler) -> None:
        if handler.command == "GET":
            reply(handler, 404, b'{"error": "not found"}')
        else:
            reply(handler, 413, b"<html>Request Entity Too Large</html>", "text/html")

    with local_server(proxy) as (page, _):
        done = submit("--link", f"{page}/s/{TOKEN}", "--file", str(FAST),
                      config=tmp_path / "link.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "The server refused it: too large: HTTP 413" in done.stderr

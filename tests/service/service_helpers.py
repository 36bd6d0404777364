"""Helpers of the submission page's tests: the real server, started as the README says.

``start_server(data, *options)`` runs ``python3 -m grader serve --data DATA --port 0 ...`` in
a subprocess, waits for its line ``Serving on URL/`` and returns a :class:`Server` (the
``serve`` fixture of conftest.py stops every server a test started). Students are put in the course's
database before it starts (``add_students``), so that their names can be anything.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

httpx = pytest.importorskip("httpx")

from grader.service import server as page_server  # noqa: E402
from grader.service.course import auth  # noqa: E402
from grader.service.course.database import Database  # noqa: E402
from grader.service.course.schema import MIGRATIONS  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "grader"
FAST = SUBMISSIONS / "correct_pruned.py"        # a correct file graded in a few seconds
PLAIN = SUBMISSIONS / "correct_plain.py"        # correct, and 8 s or more of grading
STARTUP_SECONDS = 90.0


@dataclass(frozen=True)
class LogTail:
    """The last ``lines`` lines of the log at ``path``, read when turned into text."""

    path: Path
    lines: int = 40

    def __str__(self) -> str:
        try:
            text = self.path.read_text(errors="replace").splitlines()[-self.lines:]
        except OSError as problem:
            return f"(the log {self.path} cannot be read: {problem})"
        return f"the last lines of {self.path.name}:\n" + "\n".join(text)


@dataclass
class Server:
    """A running ``grader serve``: its URL, folder, process and log."""

    url: str
    data: Path
    process: subprocess.Popen
    log: Path
    stdout: list[str] = field(default_factory=list)

    def log_tail(self, lines: int = 40) -> "LogTail":
        """The last ``lines`` of the server's log, read when printed: a failure's message
        then says what the server did meanwhile (``framed(page, ..., server.log_tail())``)."""
        return LogTail(self.log, lines)

    def token(self, student_id: str) -> str:
        store = open_store(self.data)
        try:
            return store.student_token(student_id)
        finally:
            store.close()

    def instructor_token(self) -> str:
        store = open_store(self.data)
        try:
            return store.instructor_token()
        finally:
            store.close()

    def client(self, student_id: str | None = None, **options) -> "httpx.Client":
        """An HTTP client; with ``student_id``, it sends that student's Bearer token."""
        headers = {} if student_id is None else {
            "authorization": f"Bearer {self.token(student_id)}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60.0, **options)

    def browser(self, student_id: str) -> "httpx.Client":
        """A client signed in with the student's link (a session cookie, as a browser)."""
        client = httpx.Client(base_url=self.url, timeout=60.0)
        answer = client.get(f"/s/{self.token(student_id)}")
        assert answer.status_code == 303, answer.text
        return client

    def wait_done(self, client: "httpx.Client", number: int, seconds: float = 240.0) -> dict:
        """Poll the API until submission ``number`` is done or in error."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            data = client.get(f"/api/submissions/{number}").json()
            if data["status"] in ("done", "error"):
                return data
            time.sleep(0.5)
        raise AssertionError(f"submission {number} still {data['status']} after {seconds} s")

    def stop(self, kill: bool = False) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def open_store(data: Path) -> Store:
    """The course's database, as the server opens it (from a test: to seed or to inspect)."""
    data.mkdir(parents=True, exist_ok=True)
    return Store(data / "course.sqlite3", auth.load_secret(data))


def add_students(data: Path, students: list[tuple[str, str, str]]) -> None:
    store = open_store(data)
    try:
        store.upsert_students(students)
    finally:
        store.close()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server that must know its URL beforehand)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost (a day long): (cert, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    moment = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(moment - datetime.timedelta(minutes=5))
        .not_valid_after(moment + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256()))
    cert, private = folder / "cert.pem", folder / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    private.chmod(0o600)
    return cert, private


def start_https(data: Path, port: int, cert: Path, key: Path, *options: str) -> Server:
    """``python3 -m grader serve --ssl-certfile CERT --ssl-keyfile KEY`` on ``port``, once
    it serves (one grading slot: the tests that use it hand in one file at a time)."""
    return start_server(data, "--ssl-certfile", str(cert), "--ssl-keyfile", str(key),
                        "--jobs", "1", *options, port=port)


def start_server(data: Path, *options: str, port: int = 0) -> Server:
    """``python3 -m grader serve --data DATA --port PORT OPTIONS``, once it serves."""
    log = data.parent / f"{data.name}-server.log"
    data.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--data", str(data), "--port", str(port),
             *options], cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdin=subprocess.DEVNULL)
    lines: list[str] = []
    deadline = time.monotonic() + STARTUP_SECONDS
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.match(r"Serving on (https?://\S+?)/?$", line.strip())
        if found:
            return Server(found.group(1), data, process, log, lines)
    process.kill()
    raise AssertionError("the server did not start:\n" + "".join(lines) + log.read_text())


@contextmanager
def serve_in_thread(application: Any, **options: Any) -> Iterator[tuple[int, Any]]:
    """``application`` under the page's own uvicorn server (``server.make_server(application,
    quiet=True, **options)``) on a free port of 127.0.0.1, in a thread: (port, server),
    stopped on leaving. ``with serve_in_thread(app, header_timeout=1.0) as (port, _): ...``"""
    listener = socket.create_server(("127.0.0.1", 0))   # as command.py makes it: proto 0
    server = page_server.make_server(application, quiet=True, **options)
    with _running(server, listener):
        yield listener.getsockname()[1], server


@contextmanager
def serve_without_grading(application: Any) -> Iterator[str]:
    """``application`` under uvicorn on a free port of 127.0.0.1, in a thread, without its
    lifespan: nothing handed in is graded (its queue never starts), so a test of what is
    filed where costs no grade. Its URL, stopped on leaving."""
    import uvicorn
    listener = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning",
                                           access_log=False))
    with _running(server, listener):
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


@contextmanager
def _running(server: Any, listener: socket.socket) -> Iterator[None]:
    """``server`` (a uvicorn Server) serving ``listener`` in a thread until the block ends."""
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    give_up = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < give_up and thread.is_alive(), "the server did not start"
        time.sleep(0.01)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()


def database_at_version(path: Path, version: int) -> Database:
    """A course's database at ``path`` as schema ``version`` made it (its first ``version``
    migrations, each recorded as migrate records it), to test the migrations after it:
    ``assert migrate(database_at_version(path, 3)) == [4, 5, 6, 7, 8, 9]``."""
    database = Database(path)
    for number, _, step in MIGRATIONS[:version]:
        with database.transaction() as db:
            step(db)
            db.execute("INSERT INTO settings VALUES ('schema', ?) ON CONFLICT(key) DO UPDATE "
                       "SET value = excluded.value", (str(number),))
    return database


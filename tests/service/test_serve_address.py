"""The course keeps its address: the port and ``--base-url`` are remembered across starts,
a start that changes them says so, and the tool's LTI URLs warn when they are plain http
(issue 33: a plain restart overwrote https://grader.example.org with http://127.0.0.1:8000,
so mailed links and the LMS's launch URLs broke; --lti-platform printed http URLs without a
word about an LMS needing https).

Each start is ``python -m grader serve`` in a subprocess, stopped once it says "Serving on".
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from starlette.testclient import TestClient

from grader.service.app import create_app
from grader.service.settings import ServiceSettings
from service_helpers import ROOT, free_port, open_store

HTTPS = "https://grader.example.org"
PLATFORM = {"issuer": "https://lms.example", "client_id": "c1", "deployment_ids": ["d1"],
            "auth_login_url": "https://lms.example/auth",
            "auth_token_url": "https://lms.example/token",
            "key_set_url": "https://lms.example/jwks"}


def start_and_stop(data: Path, *options: str) -> tuple[str, str]:
    """Start the server, wait for its "Serving on" line, stop it: (that line, its stderr)."""
    process = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--data", str(data),
                                "--jobs", "1", *options], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = ""
    try:
        for line in process.stdout:
            if line.startswith("Serving on"):
                break
    finally:
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=60)
    assert line.startswith("Serving on"), errors
    return line.strip(), errors



def settings(data: Path) -> dict[str, str]:
    store = open_store(data)
    try:
        return store.settings()
    finally:
        store.close()


def links(data: Path) -> str:
    return subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(data),
                           "--links"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True).stdout


@pytest.mark.long
def test_a_plain_restart_keeps_the_base_url_and_the_port(tmp_path):
    data = tmp_path / "course"
    port = free_port()
    line, _ = start_and_stop(data, "--port", str(port), "--base-url", HTTPS + "/")
    assert line == f"Serving on http://127.0.0.1:{port}/ (links: {HTTPS}/)"
    line, errors = start_and_stop(data)                         # no --port, no --base-url
    assert line == f"Serving on http://127.0.0.1:{port}/ (links: {HTTPS}/)", errors
    assert "now start with" not in errors
    assert settings(data)["base_url"] == HTTPS and settings(data)["port"] == str(port)
    assert f"{HTTPS}/s/" in links(data) and "127.0.0.1" not in links(data)
    # never given a base URL: the links follow the port it is served on
    other = tmp_path / "other"
    first, second = free_port(), free_port()
    start_and_stop(other, "--port", str(first))
    line, _ = start_and_stop(other, "--port", str(second))
    assert line == f"Serving on http://127.0.0.1:{second}/"
    assert f"http://127.0.0.1:{second}/s/" in links(other)


def test_a_start_with_another_address_changes_it_and_says_so(tmp_path):
    data = tmp_path / "course"
    port = free_port()
    start_and_stop(data, "--port", str(port), "--base-url", HTTPS)
    line, errors = start_and_stop(data, "--port", str(port),
                                  "--base-url", "https://ttt.example.edu")
    assert "(links: https://ttt.example.edu/)" in line
    assert f"the course's links now start with https://ttt.example.edu/ (they started " \
           f"with {HTTPS}/" in errors
    other = free_port()
    line, errors = start_and_stop(data, "--port", str(other))
    assert line == f"Serving on http://127.0.0.1:{other}/ (links: https://ttt.example.edu/)"
    assert f"serving on port {other} now (it was {port}" in errors


def test_lti_platform_warns_that_an_lms_needs_https(tmp_path):
    data = tmp_path / "course"
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(PLATFORM))
    command = [sys.executable, "-m", "grader", "serve", "--data", str(data),
               "--lti-platform", str(path)]
    plain = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "http://127.0.0.1:8000/lti/login" in plain.stdout
    assert re.search(r"warning: the tool's URLs are http://, and an LMS .* needs https://",
                     plain.stderr), plain.stderr
    secure = subprocess.run([*command, "--base-url", HTTPS], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert secure.returncode == 0 and f"{HTTPS}/lti/login" in secure.stdout
    assert "warning" not in secure.stderr


def test_the_lti_page_warns_under_a_plain_http_address(tmp_path):
    for base, warned in (("http://127.0.0.1:8000", True), (HTTPS, False)):
        data = tmp_path / base.split("//")[1].replace(":", "_")
        store = open_store(data)
        token = store.ensure_instructor()
        app = create_app(ServiceSettings(data=data, base_url=base), store)
        client = TestClient(app, base_url=base, follow_redirects=False)
        assert client.get(f"/s/{token}").status_code == 303
        answer = client.get("/instructor/lti")
        assert answer.status_code == 200, answer.text
        page = answer.text
        assert ("an LMS (Canvas, Moodle) needs https://" in page) is warned, base
        store.close()

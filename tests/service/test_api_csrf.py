"""The JSON API's calls that change something need a Bearer token, or the session's cookie
WITH the X-CSRF-Token header, and a JSON body that says so (issue 33: the adjustment and a
student's deadline took the instructor's cookie alone, and a text/plain body, which any
site's page can make a browser send).

The course's application (create_app) in process, through Starlette's TestClient: the
instructor signs in with their link as a browser does (a session cookie).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

import pytest
from starlette.testclient import TestClient

from grader.service.app import create_app, open_store
from grader.service.settings import ServiceSettings

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
DEADLINE = {"deadline": "2099-12-08T23:59:00+00:00"}
ADJUSTMENT = {"points": -5, "note": "docstrings"}


class Course:
    def __init__(self, data: Path) -> None:
        self.store = open_store(data)
        self.store.ensure_instructor()
        self.store.upsert_students([("ada", "Ada", "")])
        self.number = self.store.add_submission("ada", "mm_player.py", b"def mm_move(b, p):\n",
                                                late=False, config="default").id
        self.app = create_app(ServiceSettings(data=data), self.store)

    def browser(self) -> tuple[TestClient, str]:
        """The instructor signed in by their link (a cookie), and the page's CSRF token."""
        client = TestClient(self.app, follow_redirects=False)
        assert client.get(f"/s/{self.store.instructor_token()}").status_code == 303
        page = client.get("/instructor/students/ada")
        return client, CSRF.search(page.text).group(1)

    def bearer(self) -> TestClient:
        return TestClient(self.app, headers={
            "authorization": f"Bearer {self.store.instructor_token()}"})

    def calls(self) -> list[tuple[str, str, dict | None]]:
        return [("PUT", "/api/students/ada/deadline", DEADLINE),
                ("DELETE", "/api/students/ada/deadline", None),
                ("POST", f"/api/submissions/{self.number}/adjustment", ADJUSTMENT),
                ("DELETE", f"/api/submissions/{self.number}/adjustment", None)]


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def send(client: TestClient, method: str, path: str, body: dict | None,
         content_type: str = "application/json", **headers: str):
    if body is None:
        return client.request(method, path, headers=headers)
    return client.request(method, path, content=json.dumps(body),
                          headers={"content-type": content_type, **headers})


def test_the_cookie_alone_is_refused_on_every_call(course):
    client, _ = course.browser()
    for method, path, body in course.calls():
        answer = send(client, method, path, body)
        assert answer.status_code == 403, (method, path, answer.text)
        assert "came from another site" in answer.json()["error"]
    assert course.store.database.one("SELECT COUNT(*) AS n FROM changes")["n"] == 0


def test_the_cookie_with_the_csrf_header_or_a_bearer_token_is_taken(course):
    client, csrf = course.browser()
    for method, path, body in course.calls():
        answer = send(client, method, path, body, **{"x-csrf-token": csrf})
        assert answer.status_code == 200, (method, path, answer.text)
    answer = send(client, "PUT", "/api/students/ada/deadline", DEADLINE,
                  **{"x-csrf-token": "not-the-token"})
    assert answer.status_code == 403
    api = course.bearer()                      # a Bearer token needs no CSRF header
    for method, path, body in course.calls():
        answer = send(api, method, path, body, "application/json; charset=utf-8")
        assert answer.status_code == 200, (method, path, answer.text)


def test_a_body_that_is_not_said_to_be_json_is_refused_415(course):
    client, csrf = course.browser()
    for who, headers in ((client, {"x-csrf-token": csrf}), (course.bearer(), {})):
        for method, path, body in course.calls():
            if body is None:
                continue
            for kind in ("text/plain", "application/x-www-form-urlencoded", ""):
                answer = send(who, method, path, body, kind, **headers)
                assert answer.status_code == 415, (method, path, kind, answer.text)
                assert "Content-Type: application/json" in answer.json()["error"]
    assert course.store.database.one("SELECT COUNT(*) AS n FROM changes")["n"] == 0


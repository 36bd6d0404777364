"""``python3 -m grader serve`` as an instructor types it, for what it does and exits: the
students' own deadlines from a CSV, a configuration that stays put, the links' CSV, a
first start that cannot listen, a new instructor link, and remembered settings.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from grader.classroom.run import GradingOptions
from grader.service.course import course_config, record_queries
from grader.service.course.course_config import ConfigChanged, course_grading
from service_helpers import ROOT, add_students, open_store


def run_serve(data: Path, *options: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(data),
                           *options], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_deadlines_from_a_csv_are_stored_then_it_exits(tmp_path: Path):
    data = tmp_path / "course"
    add_students(data, [("ada", "Ada", ""), ("alan", "Alan", "")])
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,deadline,late_deadline\nada,2026-12-08T23:59,\n"
                   "nobody,2026-12-08T23:59,\n", encoding="utf-8")
    refused = run_serve(data, "--deadlines", str(bad))
    assert refused.returncode == 2 and "nobody" in refused.stderr
    good = tmp_path / "extensions.csv"
    good.write_text("\ufeffstudent_id,deadline,late_deadline\n"
                    "ada,2026-12-08T23:59,2026-12-10T23:59\n", encoding="utf-8")
    done = run_serve(data, "--deadlines", str(good), "--timezone", "Europe/Paris")
    assert done.returncode == 0, done.stderr
    assert "1 own deadline set (minimax: 1)" in done.stderr and "Serving" not in done.stdout
    store = open_store(data)
    try:
        own = record_queries.own_deadlines(store)
        assert list(own) == ["ada"] and own["ada"].deadline.hour == 22    # 23:59 in Paris
        assert record_queries.changes(store, "deadline")[0].who == "command line"
    finally:
        store.close()


def test_a_configuration_stays_put_unless_adopted(tmp_path: Path):
    data = tmp_path / "course"
    heavier = tmp_path / "heavier.cfg"
    heavier.write_text("[rubric]\nscores = 30\n", encoding="utf-8")
    lighter = tmp_path / "lighter.cfg"
    lighter.write_text("[rubric]\nscores = 5\n", encoding="utf-8")
    same = tmp_path / "same.cfg"
    same.write_text("# the same rubric\n[rubric]\nscores = 30\n", encoding="utf-8")
    store = open_store(data)
    try:
        grading, said = course_grading(store, data, GradingOptions())
        assert grading.config is None and "default" in said
        grading, said = course_grading(store, data, GradingOptions(config=heavier))
        assert grading.config.name == "001-heavier.cfg" and "now the course's" in said
        grading, said = course_grading(store, data, GradingOptions())      # no --config
        assert grading.config.name == "001-heavier.cfg"
        grading, said = course_grading(store, data, GradingOptions(config=same))
        assert grading.config.name == "001-heavier.cfg" and "the same as" in said
        with pytest.raises(ConfigChanged, match="adopt-config"):
            course_grading(store, data, GradingOptions(config=lighter))
        assert course_config.course_config(store).name == "001-heavier.cfg"
    finally:
        store.close()
    refused = run_serve(data, "--config", str(lighter), "--port", "0")
    assert refused.returncode == 2
    assert "rubric: scores 5 (was 30)" in refused.stderr and "--adopt-config" in refused.stderr
    store = open_store(data)
    try:
        grading, said = course_grading(store, data, GradingOptions(config=lighter), True)
        assert grading.config.name == "002-lighter.cfg"
    finally:
        store.close()


def test_links_have_a_bom_and_the_address_last_served(tmp_path: Path):
    data = tmp_path / "course"
    add_students(data, [("ada", "=Ada", "ada@example.org")])
    store = open_store(data)
    store.ensure_instructor()
    store.set_setting("base_url", "https://grader.example.org")
    store.close()
    done = subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(data),
                           "--links"], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("\ufeff".encode("utf-8"))
    text = done.stdout.decode("utf-8-sig")
    assert text.splitlines()[0] == "student_id,name,email,link"
    assert "'=Ada" in text and "https://grader.example.org/s/" in text


def test_a_first_start_that_cannot_listen_says_how_to_get_the_instructors_link(
        tmp_path: Path):
    data = tmp_path / "course"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        failed = run_serve(data, "--port", str(port))
    assert failed.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in failed.stderr
    assert f"python -m grader serve --data {data} --links" in failed.stderr
    links = run_serve(data, "--links")
    assert links.returncode == 0 and "instructor," in links.stdout


def test_a_new_instructor_link_replaces_the_old_one(tmp_path: Path):
    data = tmp_path / "course"
    store = open_store(data)
    old = store.ensure_instructor()
    store.close()
    done = run_serve(data, "--renew-instructor")
    assert done.returncode == 0, done.stderr
    new = done.stdout.strip().rsplit("/s/", 1)[1]
    store = open_store(data)
    try:
        assert store.identify(old) is None and store.identify(new).is_instructor
    finally:
        store.close()


@pytest.mark.parametrize("option, wanted", [
    (("--late-penalty", "ten percent"), "10%/day,max=50%"),
    (("--timezone", "Mars/Olympus"), "IANA name"),
    (("--deadline", "friday"), "not an ISO 8601 time"),
])
def test_a_setting_that_cannot_be_used_is_refused_with_what_to_write(tmp_path: Path, option,
                                                                     wanted):
    done = run_serve(tmp_path / "course", *option, "--links")
    assert done.returncode == 2 and wanted in done.stderr


@pytest.mark.timeout(300)
def test_the_late_policy_and_time_zone_are_remembered(serve, tmp_path: Path):
    data = tmp_path / "course"
    first = run_serve(data, "--late-penalty", "10%/day,max=50%", "--timezone", "Europe/Paris",
                  "--links")
    assert first.returncode == 0, first.stderr
    server = serve(data)                             # no options: the course's
    describe = server.log.read_text()
    assert "late penalty: 10% of the maximum score per day late" in describe
    store = open_store(data)
    try:
        assert (store.get_setting("late_penalty"), store.get_setting("timezone")) == \
            ("10%/day,max=50%", "Europe/Paris")
    finally:
        store.close()

"""The byte-order mark belongs in a CSV file for Excel, not on a terminal: ``serve --demo``
wrote it before its demo links (a stray character on the terminal, and in the server's log),
and ``--links`` wrote it to a terminal too. ``--links > links.csv`` keeps it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from service_helpers import ROOT, add_students, open_store

BOM = "\ufeff".encode("utf-8")


def _course(tmp_path: Path) -> Path:
    data = tmp_path / "course"
    add_students(data, [("jose", "José Núñez", "jose@example.org")])
    store = open_store(data)
    store.ensure_instructor()
    store.set_setting("base_url", "https://grader.example.org")
    store.close()
    return data


def _links(data: Path, stdout) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "grader", "serve", "--data", str(data),
                             "--links"], cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)


def test_links_redirected_to_a_file_keep_the_bom_for_excel(tmp_path: Path):
    data = _course(tmp_path)
    target = tmp_path / "links.csv"
    with open(target, "wb") as handle:
        process = _links(data, handle)
        assert process.wait(timeout=120) == 0, process.stderr.read()
    written = target.read_bytes()
    assert written.startswith(BOM)
    assert written.decode("utf-8-sig").splitlines()[0] == "student_id,name,email,link"


def test_links_on_a_terminal_have_no_bom(tmp_path: Path):
    data = _course(tmp_path)
    main, terminal = pty.openpty()
    try:
        process = _links(data, terminal)
        os.close(terminal)
        shown = b""
        while True:         # read until the program ends and the terminal closes
            ready, _, _ = select.select([main], [], [], 120)
            if not ready:
                break
            try:
                chunk = os.read(main, 4096)
            except OSError:    # EIO: the other end closed
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=120) == 0, process.stderr.read()
    finally:
        os.close(main)
    assert BOM not in shown
    assert shown.startswith(b"student_id,name,email,link")
    assert "José Núñez".encode() in shown


def test_demo_links_are_printed_without_a_bom(serve, tmp_path: Path):
    server = serve(tmp_path / "course", "--demo")
    printed = "".join(server.stdout)
    assert "demo students' links:\nstudent_id,name,email,link\ndemo1,Ada Demo," in printed
    assert "\ufeff" not in printed


def test_demo_students_added_again_are_said_to_be_there_already(tmp_path: Path):
    """``serve --demo`` started again once said "0 demo students added (demo1, demo2,
    demo3)"."""
    def demo() -> str:
        done = subprocess.run([sys.executable, "-m", "grader", "serve", "--data",
                               str(tmp_path / "course"), "--demo", "--links"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return done.stderr

    assert "--demo: 3 demo students added (demo1, demo2, demo3)" in demo()
    again = demo()
    assert "--demo: the demo students (demo1, demo2, demo3) were there already" in again
    assert "0 demo students" not in again

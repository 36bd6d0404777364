"""The benchmarks' own ``python -m grader serve`` on the loopback (bench_service.py,
bench_slow_body.py): import a roster and read each student's link token, start the server and
read the URL it prints, stop it. Not a benchmark and not a test: a module the scripts import.

    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), "--host", HOST]
    tokens = roster_tokens(command, roster)
    server, url = start_serving([*command, "--port", "0"], folder / "server.log")
    try: ...
    finally: clean_up(server, folder, keep=False)
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

PROJECT = Path(__file__).resolve().parent.parent.parent


def roster_tokens(command: list[str], roster: Path) -> dict[str, str]:
    """Import ``roster`` (``command --roster ROSTER --links``); each student's link token."""
    links = subprocess.run([*command, "--roster", str(roster), "--links"], cwd=PROJECT,
                           capture_output=True, text=True, check=True, timeout=300).stdout
    links = links.removeprefix("\ufeff")       # --links writes CSV for Excel: a BOM first
    return {row["student_id"]: row["link"].rsplit("/", 1)[1]
            for row in csv.DictReader(links.splitlines())}


def start_serving(command: list[str], log: Path,
                  preexec_fn: Callable[[], None] | None = None) -> tuple[subprocess.Popen, str]:
    """Run ``command`` (a ``grader serve``), its errors appended to ``log``, until it prints
    "Serving on URL": (process, URL). Exits the benchmark, naming the log, if it does not."""
    server = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE,
                              stderr=open(log, "ab"), text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=preexec_fn)
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up:
        line = server.stdout.readline()
        if not line:
            break
        found = re.match(r"Serving on (http://\S+?)/?$", line.strip())
        if found:
            return server, found.group(1)
    server.kill()
    raise SystemExit("the server did not start: see " + str(log))


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM (a graceful stop), then SIGKILL after 60 s."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def clean_up(server: subprocess.Popen | None, folder: Path, keep: bool) -> None:
    """Stop the server (if it started), then remove the benchmark's ``folder`` unless
    ``keep`` (--keep), saying where it is kept."""
    if server is not None:
        stop_server(server)
    if keep:
        print(f"kept {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)

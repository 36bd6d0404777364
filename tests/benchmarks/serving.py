"""The benchmarks' own ``python -m grader serve`` on the loopback (bench_service.py,
bench_slow_body.py, bench_slow_compile.py): import a roster and read each student's link
token, start the server and read the URL it prints, stop it; a normal client's latencies
(``measure``, ``show``). Not a benchmark and not a test: a module the scripts import.

    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), "--host", HOST]
    tokens = roster_tokens(command, roster)
    server, url = start_serving([*command, "--port", "0"], folder / "server.log")
    try: ...
    finally: clean_up(server, folder, keep=False)
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import signal
import statistics
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

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


def clean_up(server: subprocess.Popen | None, folder: Path, keep: bool,
             helper: Any = None) -> None:
    """Stop the benchmark's ``helper`` process (a multiprocessing Process, if it is still
    alive) and the server (if it started), then remove the benchmark's ``folder`` unless
    ``keep`` (--keep), saying where it is kept."""
    if helper is not None and helper.is_alive():
        helper.terminate()
        helper.join(30)
    if server is not None:
        stop_server(server)
    if keep:
        print(f"kept {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)


def measure(url: str, token: str, rate: float, seconds: float, paths: list[str],
            timeout: float = 10.0) -> tuple[list[float], Counter]:
    """Latencies (ms) of GET requests of ``paths`` in turn (with the Bearer ``token``),
    ``rate`` a second for ``seconds``, each on a fresh connection, and the errors by kind."""
    import httpx
    latencies: list[float] = []
    errors: Counter = Counter()
    until = time.monotonic() + seconds
    number = 0
    fresh = httpx.Limits(max_keepalive_connections=0)       # a new connection each time
    with httpx.Client(base_url=url, timeout=timeout, limits=fresh,
                      headers={"authorization": f"Bearer {token}"}) as client:
        while time.monotonic() < until:
            started = time.monotonic()
            path = paths[number % len(paths)]
            number += 1
            try:
                answer = client.get(path)
                if answer.status_code != 200:
                    errors[f"HTTP {answer.status_code}"] += 1
                else:
                    latencies.append(1000 * (time.monotonic() - started))
            except httpx.HTTPError as problem:
                errors[type(problem).__name__] += 1
            time.sleep(max(0.0, 1 / rate - (time.monotonic() - started)))
    return latencies, errors


def show(label: str, latencies: list[float], errors: Counter) -> tuple[float, float]:
    """Print the latencies' p50, p95, p99 and the errors; (p95, p99)."""
    if len(latencies) < 2:
        print(f"{label}: {len(latencies)} answered, errors {dict(errors)}")
        return float("inf"), float("inf")
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    print(f"{label}: {len(latencies)} answered, p50 {cuts[49]:.1f} ms, p95 {cuts[94]:.1f} ms, "
          f"p99 {cuts[98]:.1f} ms, max {max(latencies):.1f} ms; errors "
          f"{sum(errors.values())} {dict(errors) if errors else ''}", flush=True)
    return cuts[94], cuts[98]


def bench_parser(doc: str, what_lasts: str) -> argparse.ArgumentParser:
    """A benchmark's parser (its docstring's first paragraph), with ``--seconds``: how long
    ``what_lasts`` lasts (default 60, at most 600)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0,
                        help=f"how long {what_lasts} lasts (default 60, at most 600)")
    return parser


def client_options(parser: argparse.ArgumentParser) -> None:
    """The normal client's options (``--rate``, ``--baseline``) and ``--keep``."""
    parser.add_argument("--rate", type=float, default=20.0,
                        help="the normal client's requests a second (default 20)")
    parser.add_argument("--baseline", type=float, default=10.0, metavar="SECONDS",
                        help="the normal client alone first (default 10)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")

"""A waiting page's status polls while both cores grade, against an idle server, with the
grading runs below the page's CPU priority and at the same priority, alternating.

    python tests/benchmarks/bench_polls.py [--rounds 2] [--seconds 10] [--connections 50]
                                           [--busy-files 10] [--threads 1]

For each round, for each priority (nice 10, the default; nice 0: ``TTT_GRADER_NICE=0`` in
serve's environment), in turn: start ``grader serve --jobs 2`` on the loopback, hand in one
fast file (the polled submission) and wait for its report; ``wrk -c CONNECTIONS`` on its
``GET /api/submissions/ID`` (kept-alive connections, a student's Bearer token) for
``--seconds``: idle. Then hand in ``--busy-files`` plain minimax files (7 s of CPU each) from
other students and, once both slots grade, the same wrk again: busy (the benchmark checks
that both slots still grade when it ends). Prints requests per second and latency p50, p99
of each, and busy against idle. wrk's own CPU shares the two cores (``--threads``).

Not a test: pytest does not collect bench_*.py. Needs wrk and httpx.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from serving import roster_tokens, start_serving, stop_server

PROJECT = Path(__file__).resolve().parent.parent.parent
FAST = PROJECT / "tests" / "submissions" / "grader" / "correct_memoised.py"
PLAIN = PROJECT / "tests" / "submissions" / "grader" / "correct_plain.py"
HOST = "127.0.0.1"
UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def wrk(url: str, token: str, seconds: float, connections: int, threads: int) -> dict:
    """wrk's requests per second, latency p50 and p99 (seconds), and its error lines."""
    done = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections),
                           "-d", f"{seconds:g}s", "--latency",
                           "-H", f"Authorization: Bearer {token}", url],
                          capture_output=True, text=True, timeout=seconds + 60, check=True)
    out = done.stdout
    figures = {"rate": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}
    for share in ("50", "99"):
        found = re.search(rf"^\s+{share}%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M)
        figures[f"p{share}"] = float(found.group(1)) * UNITS[found.group(2)]
    figures["errors"] = [line.strip() for line in out.splitlines()
                         if "Non-2xx" in line or "Socket errors" in line]
    return figures


def running(data: Path) -> int:
    with sqlite3.connect(data / "course.sqlite3", timeout=30) as db:
        return db.execute("SELECT COUNT(*) FROM submissions WHERE status = 'running'"
                          ).fetchone()[0]


def hand_in(url: str, token: str, path: Path) -> int:
    with httpx.Client(base_url=url, timeout=120, headers={
            "authorization": f"Bearer {token}"}) as client:
        answer = client.post("/api/submissions", data={"assignment": "minimax"},
                             files={"file": ("mm_player.py", path.read_bytes())})
        answer.raise_for_status()
        return int(answer.json()["id"])


def wait_done(url: str, token: str, number: int, limit: float = 600) -> None:
    with httpx.Client(base_url=url, timeout=120, headers={
            "authorization": f"Bearer {token}"}) as client:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if client.get(f"/api/submissions/{number}").json()["status"] in ("done", "error"):
                return
            time.sleep(0.5)
    raise SystemExit(f"submission {number} was not graded within {limit:g} s")


def one_round(folder: Path, nice: int, args: argparse.Namespace) -> dict[str, dict]:
    """One server at ``nice``: wrk idle, then busy."""
    data = folder / f"course-{nice}"
    roster = folder / "roster.csv"
    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), "--host", HOST]
    tokens = roster_tokens(command, roster)
    os.environ["TTT_GRADER_NICE"] = str(nice)
    try:
        server, url = start_serving([*command, "--port", "0", "--jobs", "2", "--per-hour", "0",
                                     "--quiet"], folder / f"server-{nice}.log")
    finally:
        os.environ.pop("TTT_GRADER_NICE", None)
    try:
        polled = hand_in(url, tokens["p"], FAST)
        wait_done(url, tokens["p"], polled)
        target = f"{url}/api/submissions/{polled}"
        idle = wrk(target, tokens["p"], args.seconds, args.connections, args.threads)
        for number in range(args.busy_files):
            hand_in(url, tokens[f"b{number}"], PLAIN)
        deadline = time.monotonic() + 120
        while running(data) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        busy = wrk(target, tokens["p"], args.seconds, args.connections, args.threads)
        busy["still grading"] = running(data)
        load = os.getloadavg()[0]
    finally:
        stop_server(server)
    return {"idle": idle, "busy": busy, "load": {"load": load}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1, help="wrk's threads (default 1)")
    parser.add_argument("--busy-files", type=int, default=10)
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed")
    folder = Path(tempfile.mkdtemp(prefix="bench-polls-"))
    try:
        with open(folder / "roster.csv", "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle)
            out.writerow(["id", "name", "email"])
            for student in ["p", *(f"b{number}" for number in range(args.busy_files))]:
                out.writerow([student, f"Student {student}", f"{student}@example.org"])
        print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; wrk -t {args.threads} "
              f"-c {args.connections} -d {args.seconds:g}s on one submission's status; "
              f"busy: {args.busy_files} plain minimax files queued, --jobs 2", flush=True)
        results: dict[int, list[dict]] = {10: [], 0: []}
        for number in range(args.rounds):
            for nice in (10, 0) if number % 2 == 0 else (0, 10):
                found = one_round(folder, nice, args)
                results[nice].append(found)
                print(f"round {number + 1}, nice {nice:2d} (load {found['load']['load']:.1f}): "
                      f"idle {found['idle']['rate']:7.0f}/s p50 "
                      f"{1000 * found['idle']['p50']:5.1f} ms p99 {1000 * found['idle']['p99']:6.1f}"
                      f" ms | busy {found['busy']['rate']:7.0f}/s p50 "
                      f"{1000 * found['busy']['p50']:5.1f} ms p99 {1000 * found['busy']['p99']:6.1f}"
                      f" ms ({found['busy']['still grading']} grading at the end) | busy/idle "
                      f"{found['busy']['rate'] / found['idle']['rate']:.0%}"
                      + "".join(f"\n    {line}" for line in
                                found["idle"]["errors"] + found["busy"]["errors"]), flush=True)
        for nice, rounds in results.items():
            ratio = statistics.median(one["busy"]["rate"] / one["idle"]["rate"] for one in rounds)
            p99 = statistics.median(one["busy"]["p99"] for one in rounds)
            print(f"nice {nice:2d}: busy/idle median {ratio:.0%}, busy p99 median "
                  f"{1000 * p99:.0f} ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

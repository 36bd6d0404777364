"""The submission page while students hand in a file that is slow to compile, on the loopback.

    python tests/benchmarks/bench_slow_compile.py [--students 20] [--seconds 60] [--rate 20]

Starts ``python -m grader serve`` on 127.0.0.1 (as the README says, with a roster of
``--students`` + 1), then:

1. Baseline: a normal client reads pages as a student does, ``--rate`` requests a second on
   a fresh connection each: their home page (HTML), the stylesheet, their history
   (``GET /api/submissions``), for ``--baseline`` seconds.
2. The attack: ``--students`` students (in a process of their own), all at once and each
   again as soon as answered, hand in ``mm_player.py`` of 256 KiB, ``x = f"{a}{a}..."``,
   which takes some 13 s of CPU to compile (its check is stopped at 2 s), through
   ``POST /api/submissions``, again ``--pause`` seconds after each answer, for
   ``--seconds``. The normal client goes on as in 1.
3. Reports: the normal client's latency p50/p95/p99 and errors, before and during; the
   attack's answers by status; how many were stored (none may be). Done when the p99
   during the attack is at most 200 ms.

Before the page checked hand-ins in a child process, three such hand-ins at once held every
request (the stylesheet's too) for 32 to 67 s. Bounded: the attack lasts ``--seconds`` (at
most 600), every request has a timeout, the server and the students are stopped at the end.
Needs httpx (the test extra). Not a test: pytest does not collect bench_*.py.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from serving import (bench_parser, clean_up, client_options, measure, roster_tokens, show,
                     start_serving)

HOST = "127.0.0.1"            # the loopback only: never a load generator against a real host
REQUEST_TIMEOUT = 120.0
MAX_SECONDS = 600.0
TARGET_P99_MS = 200.0
SLOW_FILE = b'x = f"' + b"{a}" * (256 * 1024 // 3 - 3) + b'"\n'   # just under 256 KiB


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = bench_parser(__doc__, "the hand-ins")
    parser.add_argument("--students", type=int, default=20,
                        help="students handing in the slow file at once (default 20)")
    parser.add_argument("--pause", type=float, default=1.0, metavar="SECONDS",
                        help="a student hands in again SECONDS after each answer (default 1; "
                             "0: at once, a flood of uploads)")
    client_options(parser)
    args = parser.parse_args(argv)
    if args.students < 1 or not 0 < args.seconds <= MAX_SECONDS or args.rate <= 0:
        parser.error(f"--students 1 or more, --seconds in (0, {MAX_SECONDS:g}], --rate above 0")
    return args


def start_server(folder: Path, students: int) -> tuple[object, str, dict[str, str]]:
    """Import the roster (``probe`` and ``s1``...), then serve: (process, URL, tokens)."""
    roster = folder / "roster.csv"
    lines = ["id,name,email", "probe,Probe Student,probe@example.org"]
    lines += [f"s{n},Student {n},s{n}@example.org" for n in range(1, students + 1)]
    roster.write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "grader", "serve", "--data", str(folder / "course"),
               "--host", HOST]
    tokens = roster_tokens(command, roster)
    server, url = start_serving([*command, "--port", "0", "--jobs", "1"],
                                folder / "server.log")
    return server, url, tokens


# --- the students handing in the slow file (a process of their own) -------------------------

def student(url: str, token: str, until: float, pause: float, answers: Counter,
            lock: threading.Lock) -> None:
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT,
                      headers={"authorization": f"Bearer {token}"}) as client:
        while time.monotonic() < until:
            try:
                answer = client.post("/api/submissions",
                                     files={"file": ("mm_player.py", SLOW_FILE)})
                kind = f"HTTP {answer.status_code}"
                if answer.status_code == 400 and "of CPU" in answer.text:
                    kind += " (over the CPU limit)"
            except httpx.HTTPError as problem:
                kind = type(problem).__name__
            with lock:
                answers[kind] += 1
            time.sleep(pause)


def students_process(url: str, tokens: list[str], seconds: float, pause: float,
                     results) -> None:
    until = time.monotonic() + seconds
    answers: Counter = Counter()
    lock = threading.Lock()
    threads = [threading.Thread(target=student, args=(url, token, until, pause, answers, lock))
               for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put((dict(answers), time.process_time()))


# --- the normal client ------------------------------------------------------------------------

PATHS = ["/", "/static/style.css", "/api/submissions"]    # the home page, its style, history


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The CPU time of process ``pid`` so far, its own and its children's that ended (the
    checking children, for the server), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def stored(folder: Path) -> int:
    database = sqlite3.connect(folder / "course" / "course.sqlite3")
    try:
        return database.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    finally:
        database.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-slow-compile-"))
    print(f"{args.students} students handing in a {len(SLOW_FILE) // 1024} KiB file slow to "
          f"compile for {args.seconds:g} s (again {args.pause:g} s after each answer), a "
          f"normal client at {args.rate:g} requests/s; "
          f"{os.cpu_count()} cores, load now {os.getloadavg()[0]:.1f}; folder {folder}",
          flush=True)
    server = None
    others = None
    try:
        server, url, tokens = start_server(folder, args.students)
        print(f"serving on {url}", flush=True)
        show("before", *measure(url, tokens["probe"], args.rate, args.baseline, PATHS,
                                REQUEST_TIMEOUT))
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        theirs = [tokens[f"s{n}"] for n in range(1, args.students + 1)]
        others = context.Process(target=students_process,
                                 args=(url, theirs, args.seconds, args.pause, results))
        own, checks = cpu_seconds(server.pid)
        others.start()
        time.sleep(0.5)                                   # their first hand-ins are in
        latencies, errors = measure(url, tokens["probe"], args.rate, args.seconds - 1.0, PATHS,
                                    REQUEST_TIMEOUT)
        p99 = show("during", latencies, errors)[1]
        answers, theirs_cpu = results.get(timeout=args.seconds + 2 * REQUEST_TIMEOUT)
        others.join(60)
        own_after, checks_after = cpu_seconds(server.pid)
        print(f"the students' hand-ins were answered: {answers}; stored: {stored(folder)}; "
              f"load at the end {os.getloadavg()[0]:.1f}")
        print(f"CPU during the hand-ins: the web process {own_after - own:.1f} s, its checking "
              f"children {checks_after - checks:.1f} s, the students' own process (this "
              f"machine's: uploads) {theirs_cpu:.1f} s")
        print(f"{'done' if p99 <= TARGET_P99_MS else 'NOT done'}: p99 during {p99:.1f} ms "
              f"(target at most {TARGET_P99_MS:g} ms)")
        return 0 if p99 <= TARGET_P99_MS else 1
    finally:
        clean_up(server, folder, args.keep, others)


if __name__ == "__main__":
    raise SystemExit(main())

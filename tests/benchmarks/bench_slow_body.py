"""The submission page under a slow-body attack, on the loopback only.

    python tests/benchmarks/bench_slow_body.py [--attackers 400] [--seconds 60]
                                               [--trickle 1.0] [--nofile 1024] [--rate 20]

Starts ``python -m grader serve`` on 127.0.0.1 (as the README says, with one student from a
roster) under a hard file limit of ``--nofile`` descriptors (``ulimit -Hn``; soft and hard
alike, as the server raises its soft limit up to the hard one: systemd starts services at a
soft 1024 under a hard 524288), then:

1. Baseline: a normal client asks for the student's history (``GET /api/submissions`` with
   the student's Bearer token, a database read) and the tool's key set
   (``GET /lti/jwks.json``), ``--rate`` requests a second on a fresh connection each time,
   for ``--baseline`` seconds.
2. The attack: ``--attackers`` connections (in a process of their own) each send the head
   of ``POST /lti/login`` (anonymous, it reads a form) announcing a 100 kB body, then one
   byte every ``--trickle`` seconds; a connection the server closes (408 past its body
   deadline, 503 past the connection cap) is opened again at once, so the attack holds
   ``--attackers`` connections for ``--seconds``. Once they are all open, the normal client
   goes on as in 1 for the rest of the attack.
3. Reports: the normal client's latency p50/p95/p99 and errors, before and during the
   attack; how the server ended the attack's connections (408, 503, reset); its open
   descriptors at most (``/proc/PID/fd``); its log's size and its "Too many open files"
   lines. Done when the p95 during the attack is under 200 ms.

Bounded: the attack lasts ``--seconds`` (at most 600), every request has a timeout, the
server and the attackers are stopped at the end. Needs httpx (the test extra). Not a test:
pytest does not collect bench_*.py, and CI does not run it.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from serving import (bench_parser, clean_up, client_options, measure, roster_tokens, show,
                     start_serving)

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
HOST = "127.0.0.1"            # the loopback only: never a load generator against a real host
REQUEST_TIMEOUT = 10.0
MAX_SECONDS = 600.0
TARGET_P95_MS = 200.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = bench_parser(__doc__, "the attack")
    parser.add_argument("--attackers", type=int, default=400,
                        help="slow-body connections held open (default 400)")
    parser.add_argument("--trickle", type=float, default=1.0, metavar="SECONDS",
                        help="an attacker sends one byte every SECONDS (default 1)")
    parser.add_argument("--nofile", type=int, default=1024, metavar="N",
                        help="the server's file limit, soft and hard (ulimit -n -H; default "
                        "1024; the server raises its soft limit up to the hard one)")
    client_options(parser)
    args = parser.parse_args(argv)
    if args.attackers < 1 or not 0 < args.seconds <= MAX_SECONDS or args.rate <= 0 \
            or args.trickle <= 0 or args.nofile < 64:
        parser.error(f"--attackers 1 or more, --seconds in (0, {MAX_SECONDS:g}], --rate and "
                     "--trickle above 0, --nofile 64 or more")
    return args


def start_server(folder: Path, nofile: int) -> tuple[subprocess.Popen, str, str]:
    """Import a one-student roster, then serve under the file limit: (process, URL, token)."""
    roster = folder / "roster.csv"
    roster.write_text("id,name,email\nprobe,Probe Student,probe@example.org\n",
                      encoding="utf-8")
    command = [sys.executable, "-m", "grader", "serve", "--data", str(folder / "course"),
               "--host", HOST]
    token = roster_tokens(command, roster)["probe"]

    def limit_files() -> None:          # soft and hard: the server cannot raise it
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(nofile, hard), min(nofile, hard)))

    server, url = start_serving([*command, "--port", "0", "--jobs", "1"],
                                folder / "server.log", preexec_fn=limit_files)
    return server, url, token


def open_descriptors(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


# --- the attack (a process of its own, so that it does not slow the normal client) ----------

async def attacker(port: int, trickle: float, until: float, ended: Counter,
                   opened: list[int]) -> None:
    head = (f"POST /lti/login HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
            "iss=").encode()
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            ended["could not connect"] += 1
            await asyncio.sleep(trickle)
            continue
        opened[0] += 1
        how = "still open at the end"
        try:
            writer.write(head)
            while time.monotonic() < until:
                await writer.drain()
                try:
                    answer = await asyncio.wait_for(reader.read(200), trickle)
                except asyncio.TimeoutError:
                    writer.write(b"a")
                    continue
                status = answer.split(b"\r\n", 1)[0].split(b" ")[1:2]
                how = f"answered {status[0].decode()}" if answer and status else "closed"
                break
        except (ConnectionError, OSError):
            how = "reset"
        finally:
            opened[0] -= 1
            ended[how] += 1
            writer.close()


async def attack(port: int, attackers: int, trickle: float, seconds: float, ready) -> dict:
    until = time.monotonic() + seconds
    ended: Counter = Counter()
    opened = [0]
    tasks = []
    for _ in range(attackers):
        tasks.append(asyncio.create_task(attacker(port, trickle, until, ended, opened)))
        await asyncio.sleep(0.002)                  # a ramp of under a second
    signalled = False
    while time.monotonic() < until:
        if not signalled and opened[0] >= attackers * 0.95:
            ready.set()
            signalled = True
        await asyncio.sleep(0.1)
    ready.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return dict(ended)


def attack_process(port: int, args: argparse.Namespace, ready, results) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))     # the attack's own sockets
    results.put(asyncio.run(attack(port, args.attackers, args.trickle, args.seconds, ready)))


# --- the normal client ------------------------------------------------------------------------

PATHS = ["/api/submissions", "/lti/jwks.json"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-slow-body-"))
    print(f"{args.attackers} slow-body connections for {args.seconds:g} s (a byte every "
          f"{args.trickle:g} s), server file limit {args.nofile}, a normal client at "
          f"{args.rate:g} requests/s; {os.cpu_count()} cores, load now "
          f"{os.getloadavg()[0]:.1f}; folder {folder}", flush=True)
    server = None
    attackers = None
    try:
        server, url, token = start_server(folder, args.nofile)
        port = int(url.rsplit(":", 1)[1])
        print(f"serving on {url} (pid {server.pid}), {open_descriptors(server.pid)} "
              "descriptors open at rest", flush=True)
        show("before the attack", *measure(url, token, args.rate, args.baseline, PATHS,
                                             REQUEST_TIMEOUT))

        context = multiprocessing.get_context("spawn")
        ready, results = context.Event(), context.Queue()
        attackers = context.Process(target=attack_process, args=(port, args, ready, results))
        started = time.monotonic()
        attackers.start()
        ready.wait(args.seconds)
        opened_after = time.monotonic() - started
        most = open_descriptors(server.pid)
        print(f"the attack's connections open after {opened_after:.1f} s; the server holds "
              f"{most} descriptors", flush=True)
        remaining = args.seconds - (time.monotonic() - started) - 1.0
        latencies, errors = measure(url, token, args.rate, max(1.0, remaining), PATHS,
                                    REQUEST_TIMEOUT)
        most = max(most, open_descriptors(server.pid))
        p95 = show("during the attack", latencies, errors)[0]
        ended = results.get(timeout=args.seconds + 120)
        attackers.join(60)
        print(f"the attack's connections ended: {ended}")
        log = (folder / "server.log").read_text(encoding="utf-8", errors="replace")
        print(f"the server: at most {most} descriptors seen open; its log "
              f"{len(log.encode()) / 1024:.1f} KiB, {log.count('Too many open files')} lines "
              f"saying 'Too many open files', {log.count('Traceback')} tracebacks")
        print(f"{'done' if p95 < TARGET_P95_MS else 'NOT done'}: p95 during the attack "
              f"{p95:.1f} ms (target under {TARGET_P95_MS:g} ms)")
        return 0 if p95 < TARGET_P95_MS else 1
    finally:
        clean_up(server, folder, args.keep, attackers)


if __name__ == "__main__":
    raise SystemExit(main())

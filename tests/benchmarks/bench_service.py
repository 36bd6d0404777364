"""The submission page under a class's deadline rush, on the loopback only.

    python tests/benchmarks/bench_service.py [--students 300] [--over 60] [--jobs N]
                                             [--readers R] [--quick] [--limit SECONDS]
                                             [--assignments {minimax,both}]
                                             [--clients-nice N]

Starts ``python -m grader serve`` on 127.0.0.1 with a roster of ``--students`` students
(plus ``--readers`` who only read, and one probe), then:

1. Empty queue: the probe hands in a plain correct file (tests/submissions/grader/
   correct_plain.py); the time from "received" to the report (the server's own
   received_at/finished_at, and as the client saw it) against ``python -m grader grade`` on
   the same file.
2. The rush: each student signs in with their link (a session cookie, as a browser), opens
   the home page, hands in their file through the page's form (with its CSRF token) at a
   time drawn uniformly over ``--over`` seconds, then asks the JSON API when the server
   says (``poll_after``, as the page's script does; ``--poll`` seconds if it does not)
   until the report is ready, and opens the report page.
   Meanwhile the readers reload their home page every ``--reload`` seconds (jittered). The
   files are a realistic mix, mostly fast (correct memoised, alpha-beta, pruned and plain
   files, classic bugs, a slow one, a crasher, a syntax error, the template); ``--quick``
   takes only the fast ones and 40 students. Each file starts with a comment naming its
   student, so no two are the same.
   ``--assignments both``: the course holds the minimax and the Monte Carlo assignments
   (``serve --assignment minimax --assignment montecarlo``) and about half the students hand
   in a Monte Carlo file (the assignment's known answers, grader/assignments/montecarlo/
   submissions/: the correct ones and the bugs) on the Monte Carlo assignment: they open ``/?assignment=montecarlo`` and post its form, which
   names the assignment in a hidden field. The readers' home page then lists both.
3. Checks: every hand-in was received, graded (done or grader error) and appears exactly
   once in its student's history (nothing lost, nothing doubled) under its assignment; the
   score of each file against ``python -m grader batch --jobs N`` on the same files (same
   code, same score; with both assignments, batch ``--assignment NAME`` on each one's files,
   since batch grades a folder as one assignment).
4. Reports: page latency p50/p95/p99 by kind while every core grades, and two rows that
   say how much of it is the benchmark's own: how late the clients' event loop wakes from
   a 0.1 s sleep, and the probe's JSON poll every 0.2 s from a process of its own (as one
   student's browser would ask, beside 180 students in one Python process); grading throughput
   (first start to last finish) against batch's wall time; the server process's memory
   (VmRSS from /proc, sampled, and its peak VmHWM) and how many grading runs it had at once.
   With both assignments, the latency of each assignment's students and each assignment's
   throughput too.

Before the rush (an idle server, after the probe), one client asks for the probe's
submission (``GET /api/submissions/ID``, as a waiting page polls) ``--connection-requests``
times on one kept-alive connection, then as often with a fresh connection each time: p50,
p95 and requests per second of each. ``--connections-only`` does only that (and the probe's
hand-in it needs), then stops the server.

Bounded: at most ``--limit`` seconds of waiting for the reports (default 3600; then it says
what was left), every request has a timeout, the server is stopped at the end. Needs httpx
(the test extra). Not a test: pytest does not collect bench_*.py, and CI does not run it.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
from batch_compare import batch, batch_each, compare_runs, show_throughput
from serving import (children, clean_up, cpu_seconds, own_cpu_seconds, proc_kib,
                     roster_tokens, start_serving, stop_server)
from semester_drill import class_files  # noqa: E402  (tests/service, as serving puts it)

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
GRADER = PROJECT / "tests" / "submissions" / "grader"
CLASS = PROJECT / "tests" / "submissions" / "class"
TEMPLATE = PROJECT / "student" / "mm_player.py"
PLAIN = GRADER / "correct_plain.py"
HOST = "127.0.0.1"            # the loopback only: never a load generator against a real host
REQUEST_TIMEOUT = 120.0

# (file, share of the class): a realistic mix, mostly fast. --quick keeps the fast ones.
MIX = [(GRADER / "correct_memoised.py", 30), (CLASS / "alphabeta.py", 25),
       (GRADER / "correct_pruned.py", 12), (PLAIN, 8), (GRADER / "bug_crash.py", 4),
       (CLASS / "syntax_error.py", 4), (TEMPLATE, 4), (GRADER / "bug_sign_error_o.py", 3),
       (GRADER / "bug_no_base_case.py", 3), (GRADER / "bug_draws_as_losses.py", 3),
       (CLASS / "crasher.py", 2), (GRADER / "too_slow.py", 2)]
QUICK_MIX = [(GRADER / "correct_memoised.py", 35), (CLASS / "alphabeta.py", 25),
             (GRADER / "correct_pruned.py", 10), (GRADER / "bug_crash.py", 10),
             (CLASS / "syntax_error.py", 10), (TEMPLATE, 10)]
MONTECARLO = PROJECT / "grader" / "assignments" / "montecarlo" / "submissions"
# The Monte Carlo files, all fast (a grade is about 0.4 s warm): mostly correct, every bug.
MC_MIX = [(MONTECARLO / "correct_course_style.py", 25), (MONTECARLO / "correct_clone.py", 12),
          (MONTECARLO / "correct_deepcopy.py", 10), (MONTECARLO / "correct_randrange.py", 10),
          (MONTECARLO / "correct_seed_inside.py", 5)] + \
         [(path, 4) for path in sorted(MONTECARLO.glob("bug_*.py"))]
# What each assignment's student hands in: the file's name (the template's).
HANDED_IN_AS = {"minimax": "mm_player.py", "montecarlo": "mc_player.py"}
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
ASSIGNMENT_FIELD = re.compile(r'name="assignment" value="([^"]+)"')


@dataclass
class Student:
    student_id: str
    token: str
    file: Path | None = None            # None: a reader
    assignment: str | None = None       # the one handed in to; None: the course's only one
    submission: int | None = None
    submitted_at: float = 0.0           # monotonic time of the answer to the hand-in
    done_at: float = 0.0
    refused: str = ""
    final: dict = field(default_factory=dict)


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # The same latencies again by the assignment the student hands in to (--assignments both).
    by_assignment: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    rss_kib: list[int] = field(default_factory=list)
    grading_at_once: list[int] = field(default_factory=list)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, help="students who hand in (default 300; "
                        "--quick: 40)")
    parser.add_argument("--over", type=float, default=60.0, metavar="SECONDS",
                        help="hand-ins spread over this many seconds (default 60)")
    parser.add_argument("--readers", type=int, help="students who only reload their page "
                        "(default: a fifth of --students, at least 5)")
    parser.add_argument("--reload", type=float, default=3.0, metavar="SECONDS",
                        help="a reader reloads every SECONDS, jittered (default 3)")
    parser.add_argument("--poll", type=float, default=1.0, metavar="SECONDS",
                        help="a waiting student asks the API every SECONDS (default 1, as "
                        "the page's script)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="the server's and batch's --jobs (default: the cores)")
    parser.add_argument("--quick", action="store_true", help="fast files only, 40 students")
    parser.add_argument("--limit", type=float, default=3600.0, metavar="SECONDS",
                        help="stop waiting for reports after this long (default 3600)")
    parser.add_argument("--no-batch", action="store_true", help="skip the batch comparison")
    parser.add_argument("--no-probe", action="store_true", help="skip the empty-queue timing")
    parser.add_argument("--connection-requests", type=int, default=300, metavar="N",
                        help="requests for each connection measure (default 300; 0: none)")
    parser.add_argument("--connections-only", action="store_true",
                        help="only the kept-alive and fresh connection measures")
    parser.add_argument("--assignments", choices=["minimax", "both"], default="minimax",
                        help="minimax: a course of the minimax alone (default); both: the "
                             "minimax and the Monte Carlo, about half the class on each")
    parser.add_argument("--clients-nice", type=int, default=0, metavar="N",
                        help="run the benchmark's own clients at this CPU niceness during the "
                             "rush (19: nearly as if on another machine, which students' "
                             "browsers are; the probe of its own process stays at 0)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    args.students = args.students or (40 if args.quick else 300)
    args.readers = args.readers if args.readers is not None else max(5, args.students // 5)
    if args.students < 1 or args.jobs < 1 or args.over < 0 or args.readers < 0:
        parser.error("--students and --jobs must be 1 or more, --over and --readers 0 or more")
    return args


def build_class(folder: Path, args: argparse.Namespace, rng: random.Random
                ) -> tuple[list[Student], list[Student], Path]:
    """The roster and every student's file (named after the student, for batch; with both
    assignments, in a folder per assignment: batch grades a folder as one assignment)."""
    submissions = folder / "class"
    submissions.mkdir()
    mix = QUICK_MIX if args.quick else MIX
    if args.assignments == "both":
        monte = args.students // 2
        chosen = [(path, "minimax") for path in class_files(args.students - monte, mix, rng)]
        chosen += [(path, "montecarlo") for path in class_files(monte, MC_MIX, rng)]
        rng.shuffle(chosen)
        for name in HANDED_IN_AS:
            (submissions / name).mkdir()
    else:
        chosen = [(path, None) for path in class_files(args.students, mix, rng)]
    writers = [Student(f"s{number:03d}", "", path, assignment)
               for number, (path, assignment) in enumerate(chosen, 1)]
    readers = [Student(f"r{number:03d}", "") for number in range(1, args.readers + 1)]
    for student in writers:
        text = student.file.read_text(encoding="utf-8")
        own = submissions / (student.assignment or "") / f"{student.student_id}.py"
        own.write_text(f"# {student.student_id} ({student.file.name})\n{text}", encoding="utf-8")
        student.file = own
    roster = folder / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["id", "name", "email"])
        for student in [*writers, *readers, Student("probe", "")]:
            out.writerow([student.student_id, f"Student {student.student_id}",
                          f"{student.student_id}@example.org"])
    return writers, readers, roster


def start_server(data: Path, roster: Path, jobs: int, assignments: list[str]
                 ) -> tuple[subprocess.Popen, str, dict]:
    """Import the roster (printing the links), then serve (adding ``assignments`` to the
    course); the URL it prints, and the tokens."""
    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), "--host", HOST]
    tokens = roster_tokens(command, roster)
    adding = [part for name in assignments for part in ("--assignment", name)]
    server, url = start_serving([*command, *adding, "--port", "0", "--jobs", str(jobs),
                                 "--per-hour", "0", "--quiet"], data.parent / "server.log")
    return server, url, tokens


async def timed(client: httpx.AsyncClient, figures: Figures, kind: str, method: str, url: str,
                assignment: str | None = None, **options) -> httpx.Response | None:
    """One request, its latency filed under ``kind`` (and under ``assignment``'s ``kind``
    when given); None (counted) when it failed."""
    started = time.perf_counter()
    try:
        answer = await client.request(method, url, **options)
    except httpx.HTTPError as problem:
        figures.errors[f"{kind}: {type(problem).__name__}"] += 1
        return None
    figures.latencies[kind].append(time.perf_counter() - started)
    if assignment is not None:
        figures.by_assignment[assignment][kind].append(figures.latencies[kind][-1])
    if answer.status_code >= 500:
        figures.errors[f"{kind}: HTTP {answer.status_code}"] += 1
    return answer


async def sign_in(client: httpx.AsyncClient, figures: Figures, student: Student
                  ) -> dict[str, str]:
    """Open the link (cookie), then the home page (the page of the student's assignment,
    when they hand in to one): its form's CSRF token, and its hidden assignment field when
    it has one."""
    mine = student.assignment
    await timed(client, figures, "sign in", "GET", f"/s/{student.token}", mine)
    # A course of several asks which assignment first: each has its page and its form.
    page = "/" if mine is None else f"/?assignment={mine}"
    home = await timed(client, figures, "home page", "GET", page, mine)
    fields = {}
    for name, pattern in (("csrf", CSRF), ("assignment", ASSIGNMENT_FIELD)):
        found = pattern.search(home.text) if home is not None else None
        if found:
            fields[name] = found.group(1)
    fields.setdefault("csrf", "")
    return fields


async def hand_in(url: str, figures: Figures, student: Student, at: float, start: float,
                  poll: float, stop: asyncio.Event) -> None:
    """One student: wait for their moment, sign in, hand in, watch, read the report."""
    await asyncio.sleep(max(0.0, start + at - time.monotonic()))
    async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT) as client:
        mine = student.assignment
        form = await sign_in(client, figures, student)
        if mine is not None and form.get("assignment") != mine:
            student.refused = f"the page's form is for {form.get('assignment')!r}, not {mine}"
            return
        answer = await timed(client, figures, "hand in (form POST)", "POST", "/submit", mine,
                             # the course's only assignment: the form's fields as today
                             data=form if mine else {"csrf": form["csrf"]},
                             files={"file": (HANDED_IN_AS[mine or "minimax"],
                                             student.file.read_bytes())})
        student.submitted_at = time.monotonic()
        if answer is None or answer.status_code != 303:
            student.refused = "no answer" if answer is None else \
                f"HTTP {answer.status_code}: {answer.text[:200]}"
            return
        student.submission = int(answer.headers["location"].rsplit("/", 1)[1])
        await timed(client, figures, "submission page", "GET",
                    f"/submissions/{student.submission}", mine)
        while not stop.is_set():
            state = await timed(client, figures, "progress (JSON poll)", "GET",
                                f"/api/submissions/{student.submission}", mine)
            if state is not None and state.status_code == 200 and \
                    state.json()["status"] in ("done", "error"):
                student.done_at = time.monotonic()
                student.final = state.json()
                await timed(client, figures, "report page", "GET",
                            f"/submissions/{student.submission}", mine)
                return
            # As the page's script does: the server's pace when it gives one.
            pace = state.json().get("poll_after") if state is not None and \
                state.status_code == 200 else None
            await asyncio.sleep(pace or poll)


async def read_pages(url: str, figures: Figures, student: Student, every: float,
                     rng: random.Random, stop: asyncio.Event) -> None:
    """A student who keeps their home page open and reloads it every few seconds."""
    async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT) as client:
        await asyncio.sleep(rng.uniform(0, every))
        await sign_in(client, figures, student)
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), every * rng.uniform(0.5, 1.5))
            except asyncio.TimeoutError:
                await timed(client, figures, "home page", "GET", "/")


async def sample(pid: int, figures: Figures, stop: asyncio.Event) -> None:
    while not stop.is_set():
        figures.rss_kib.append(proc_kib(pid, "VmRSS"))
        figures.grading_at_once.append(children(pid))
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except asyncio.TimeoutError:
            pass


# What the table's own clients cannot say: how long the page takes when the asker is not
# one event loop among 180 students. Its own process polls ``path`` on one kept-alive
# connection every 0.2 s until SIGTERM, then prints each request's seconds (a JSON list).
OWN_PROCESS_PROBE = """
import http.client, json, signal, sys, time, urllib.parse
url, token, path = sys.argv[1:4]
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
place = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(place.hostname, place.port, timeout=120)
times = []
while not stop:
    began = time.perf_counter()
    connection.request("GET", path, headers={"authorization": "Bearer " + token})
    connection.getresponse().read()
    times.append(time.perf_counter() - began)
    time.sleep(0.2)
print(json.dumps(times))
"""
OWN_PROCESS = "JSON poll, a process of its own"
CLIENT_DELAY = "(the clients' own delay)"


def start_own_probe(url: str, token: str, path: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", OWN_PROCESS_PROBE, url, token, path],
                            stdout=subprocess.PIPE, text=True)


def own_probe_times(probe: subprocess.Popen) -> list[float]:
    """The probe's request times, once it is stopped (none if it failed)."""
    probe.terminate()
    try:
        out, _ = probe.communicate(timeout=150)
        return [float(value) for value in json.loads(out or "[]")]
    except (subprocess.TimeoutExpired, ValueError):
        probe.kill()
        return []


async def client_delay(figures: Figures, stop: asyncio.Event) -> None:
    """How late the clients' event loop wakes from a 0.1 s sleep: a share of every latency
    in the table that is the benchmark's own, not the page's."""
    while not stop.is_set():
        began = time.perf_counter()
        await asyncio.sleep(0.1)
        figures.latencies[CLIENT_DELAY].append(max(0.0, time.perf_counter() - began - 0.1))


async def rush(url: str, pid: int, writers: list[Student], readers: list[Student],
               args: argparse.Namespace, rng: random.Random) -> tuple[Figures, float]:
    figures = Figures()
    stop = asyncio.Event()
    start = time.monotonic()
    moments = sorted(rng.uniform(0, args.over) for _ in writers)
    background = [asyncio.create_task(sample(pid, figures, stop)),
                  asyncio.create_task(client_delay(figures, stop))]
    background += [asyncio.create_task(read_pages(url, figures, reader, args.reload,
                                                  random.Random(rng.random()), stop))
                   for reader in readers]
    students = [asyncio.create_task(hand_in(url, figures, student, at, start, args.poll, stop))
                for student, at in zip(writers, moments)]
    done, pending = await asyncio.wait(students, timeout=args.over + args.limit)
    stop.set()
    await asyncio.gather(*background, *pending, return_exceptions=True)
    for task in done:
        if task.exception() is not None:
            figures.errors[f"student: {task.exception()!r}"[:120]] += 1
    return figures, time.monotonic() - start


def empty_queue(url: str, token: str, path: Path) -> tuple[float, float, int]:
    """(server seconds from received to finished, client seconds from the 201 to done, the
    submission's id)."""
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT,
                      headers={"authorization": f"Bearer {token}"}) as client:
        answer = client.post("/api/submissions", files={"file": ("mm_player.py",
                                                                 path.read_bytes())})
        answer.raise_for_status()
        received = time.monotonic()
        number = answer.json()["id"]
        while True:
            state = client.get(f"/api/submissions/{number}").json()
            if state["status"] in ("done", "error"):
                seen = time.monotonic() - received
                break
            time.sleep(0.1)
    server = (iso(state["finished_at"]) - iso(state["received_at"])).total_seconds()
    return server, seen, number


def connection_latency(url: str, token: str, path: str, count: int
                       ) -> dict[str, tuple[float, float, float]]:
    """``count`` GETs of ``path`` on one kept-alive connection, then ``count`` with a fresh
    connection each (``Connection: close``): {kind: (p50 s, p95 s, requests per second)}.

    A browser keeps its connection alive, so every poll after the first goes the first way;
    a server that holds back a response's body until the client's delayed ACK (Nagle's
    algorithm on the accepted socket) shows ~40 ms there and not on fresh connections."""
    figures: dict[str, tuple[float, float, float]] = {}
    headers = {"authorization": f"Bearer {token}"}
    for kind, extra in (("one kept-alive connection", {}),
                        ("a fresh connection each", {"connection": "close"})):
        with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT,
                          headers={**headers, **extra}) as client:
            client.get(path).raise_for_status()        # the first: opens the connection
            times = []
            began = time.perf_counter()
            for _ in range(count):
                started = time.perf_counter()
                client.get(path).raise_for_status()
                times.append(time.perf_counter() - started)
            took = time.perf_counter() - began
        figures[kind] = (statistics.median(times), percentile(times, 0.95), count / took)
    return figures


def show_connection_latency(figures: dict[str, tuple[float, float, float]]) -> None:
    for kind, (median, p95, rate) in figures.items():
        print(f"  {kind:28} p50 {1000 * median:6.2f} ms, p95 {1000 * p95:6.2f} ms, "
              f"{rate:7.0f} requests/s", flush=True)


def iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def grade_seconds(path: Path) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "grade", str(path)], cwd=PROJECT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
    return time.monotonic() - started


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def show_latencies(figures: Figures) -> None:
    show_table("page latency (ms)", figures.latencies)
    for problem, count in sorted(figures.errors.items()):
        print(f"  errors: {problem}: {count}")
    for assignment, latencies in sorted(figures.by_assignment.items()):
        show_table(f"{assignment}'s students (ms)", latencies)


def show_table(title: str, latencies: dict[str, list[float]]) -> None:
    """p50/p95/p99/max of each kind of request, and of every HTML page together."""
    print(f"\n{title:28} {'count':>6} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}")
    kinds = dict(latencies)
    kinds["ALL HTML PAGES"] = [value for kind, values in latencies.items()
                               if "page" in kind for value in values]
    for kind, values in kinds.items():
        if values:
            print(f"{kind:28} {len(values):6} " + " ".join(
                f"{1000 * percentile(values, share):7.0f}" for share in (0.5, 0.95, 0.99))
                + f" {1000 * max(values):7.0f}")


def check_histories(url: str, writers: list[Student]
                    ) -> tuple[list[str], list[str], list[str]]:
    """(lost, doubled, misplaced): ids whose hand-in is missing from their history, in it
    twice, or in it under another assignment than the one they handed in to."""
    lost, doubled, misplaced = [], [], []
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT) as client:
        for student in writers:
            history = client.get("/api/submissions", headers={
                "authorization": f"Bearer {student.token}"}).json()["submissions"]
            ids = [entry["id"] for entry in history]
            if student.submission is not None and student.submission not in ids:
                lost.append(student.student_id)
            if len(ids) != len(set(ids)) or len(ids) > 1:
                doubled.append(student.student_id)
            if student.assignment is not None and any(
                    entry["assignment"] != student.assignment for entry in history):
                misplaced.append(student.student_id)
    return lost, doubled, misplaced


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="bench-service-"))
    both = args.assignments == "both"
    print(f"{args.students} students hand in over {args.over:g} s, {args.readers} readers "
          f"reload every {args.reload:g} s, --jobs {args.jobs}, {os.cpu_count()} cores, "
          f"load now {os.getloadavg()[0]:.1f}; folder {folder}"
          + ("; two assignments, minimax and montecarlo" if both else ""), flush=True)
    server = None
    try:
        writers, readers, roster = build_class(folder, args, rng)
        mix = defaultdict(int)
        for student in writers:
            name = student.file.read_text(encoding="utf-8").split("(", 1)[1].split(")", 1)[0]
            mix[f"{student.assignment}/{name}" if both else name] += 1
        print("mix: " + ", ".join(f"{count} {name}" for name, count in sorted(
            mix.items(), key=lambda pair: -pair[1])), flush=True)
        server, url, tokens = start_server(folder / "course", roster, args.jobs,
                                           list(HANDED_IN_AS) if both else [])
        for student in [*writers, *readers]:
            student.token = tokens[student.student_id]
        print(f"serving on {url} (pid {server.pid}), RSS {proc_kib(server.pid, 'VmRSS') / 1024:.0f} "
              "MiB at rest", flush=True)

        probe: int | None = None
        if not args.no_probe or args.connections_only:
            grade = grade_seconds(PLAIN)
            on_server, seen, probe = empty_queue(url, tokens["probe"], PLAIN)
            print(f"\nempty queue, {PLAIN.name}: received -> report {on_server:.2f} s on the "
                  f"server ({seen:.2f} s seen by the client); python -m grader grade: "
                  f"{grade:.2f} s; difference {on_server - grade:+.2f} s", flush=True)
        if args.connection_requests > 0:
            path = f"/api/submissions/{probe}" if probe is not None else "/api/submissions"
            print(f"\nan idle server, GET {path} x {args.connection_requests}:", flush=True)
            show_connection_latency(connection_latency(url, tokens["probe"], path,
                                                       args.connection_requests))
        if args.connections_only:
            return 0

        print(f"\nthe rush: {len(writers)} hand-ins ...", flush=True)
        server_cpu, clients_cpu = cpu_seconds(server.pid), own_cpu_seconds()
        own_probe = start_own_probe(url, tokens["probe"], f"/api/submissions/{probe}"
                                    if probe is not None else "/api/submissions")
        if args.clients_nice:
            print(f"(the clients at nice {args.clients_nice})", flush=True)
        before_nice = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, max(before_nice, args.clients_nice))
        figures, took = asyncio.run(rush(url, server.pid, writers, readers, args, rng))
        try:
            os.setpriority(os.PRIO_PROCESS, 0, before_nice)   # batch runs as it always does
        except PermissionError:
            print("(batch below runs at the clients' nice: only root may raise it back)")
        figures.latencies[OWN_PROCESS] = own_probe_times(own_probe)
        server_cpu = cpu_seconds(server.pid) - server_cpu
        clients_cpu = own_cpu_seconds() - clients_cpu
        graded = [s for s in writers if s.final.get("status") in ("done", "error")]
        errors = [s for s in graded if s.final["status"] == "error"]
        refused = [s for s in writers if s.refused]
        unfinished = [s for s in writers if s.submission is not None and not s.final]
        print(f"took {took:.0f} s: {sum(s.submission is not None for s in writers)} received, "
              f"{len(graded)} graded ({len(errors)} grader errors), {len(refused)} refused, "
              f"{len(unfinished)} not finished within --limit")
        for student in refused[:5]:
            print(f"  refused {student.student_id}: {student.refused}")
        lost, doubled, misplaced = check_histories(url, writers)
        print(f"histories: {len(lost)} lost {lost[:5]}, {len(doubled)} doubled {doubled[:5]}"
              + (f", {len(misplaced)} under another assignment {misplaced[:5]}" if both else ""))
        show_latencies(figures)
        rss = [kib for kib in figures.rss_kib if kib]
        busy = figures.grading_at_once
        full = sum(count >= args.jobs for count in busy) / max(1, len(busy))
        print(f"\nserver memory: RSS median {statistics.median(rss) / 1024:.0f} MiB, max "
              f"{max(rss) / 1024:.0f} MiB, peak (VmHWM) "
              f"{proc_kib(server.pid, 'VmHWM') / 1024:.0f} MiB; grading runs at once: "
              f"median {statistics.median(busy):g}, max {max(busy)}; all {args.jobs} busy "
              f"{100 * full:.0f}% of the rush")
        print(f"CPU during the rush ({took:.0f} s, {os.cpu_count()} cores): the web process "
              f"{server_cpu:.1f} s ({100 * server_cpu / took / (os.cpu_count() or 1):.1f}% of "
              f"the machine), the benchmark's clients {clients_cpu:.1f} s "
              f"({100 * clients_cpu / took / (os.cpu_count() or 1):.1f}%)")
        runs = [(iso(s.final["finished_at"]) - iso(s.final["started_at"])).total_seconds()
                for s in graded if s.final.get("started_at") and s.final.get("finished_at")]
        if graded:
            first = min(iso(s.final["started_at"]) for s in graded if s.final.get("started_at"))
            last = max(iso(s.final["finished_at"]) for s in graded if s.final.get("finished_at"))
            span = (last - first).total_seconds()
            print(f"server: {len(graded)} graded from the first start to the last finish in "
                  f"{span:.0f} s: {60 * len(graded) / span:.1f} per minute")
            if both:
                show_throughput(graded, list(HANDED_IN_AS))
        stop_server(server)
        server = None
        if not args.no_batch:
            if both:
                wall, scores, batch_runs = batch_each(
                    folder / "class", folder / "batch", args.jobs,
                    {name: sum(s.assignment == name for s in writers) for name in HANDED_IN_AS})
            else:
                wall, scores, batch_runs = batch(folder / "class", folder / "batch", args.jobs)
            print(f"batch --jobs {args.jobs} on the same {len(writers)} files: {wall:.0f} s: "
                  f"{60 * len(writers) / wall:.1f} per minute"
                  + (f"; the server's rate is {100 * (len(graded) / span) / (len(writers) / wall):.0f}% "
                     "of batch's" if graded else ""))
            if runs:
                print(f"one grading run, mean wall: {statistics.mean(runs):.2f} s on the server "
                      f"(started -> finished); batch: {wall * args.jobs / len(writers):.2f} s "
                      f"a file per slot (wall x jobs / files; the grade's own wall_seconds "
                      f"mean {statistics.mean(batch_runs):.2f} s)")
            compare_runs(folder / "course", folder / "batch", list(HANDED_IN_AS) if both
                         else [None])
            differ = [(s.student_id, s.file.name, s.final.get("score"), scores.get(s.student_id))
                      for s in graded if s.final.get("status") == "done"
                      and s.final.get("score") != scores.get(s.student_id)]
            print(f"same code, same score: {len(graded) - len(differ)} of {len(graded)} agree "
                  f"with batch" + "".join(f"\n  {row}" for row in differ[:10]))
    finally:
        clean_up(server, folder, args.keep)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

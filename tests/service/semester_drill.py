"""The semester drill: a term of two assignments (minimax, then Monte Carlo) on one server,
lived as its people live it. tests/service/test_semester_drill.py runs a short term;
tests/benchmarks/bench_semester.py a class of 500 (the report: semester_report.py).

The course is served over HTTPS (``grader serve --ssl-certfile ... --lti-allow-private``)
and is a tool of a Canvas-shaped LMS (tests/service/lti_platform.py, its "canvas" profile,
over HTTPS on another site): the instructor registers it (Dynamic Registration, from the
tool's LTI page), binds the course with their first launch and one link per assignment (the
Monte Carlo link by its custom parameter, the minimax link chosen on the page), and gives
each assignment its deadline, a late window and a penalty. Then, on the clock:

- every student launches the tool from the assignment's link and hands in through the
  page's form, naming the assignment (its hidden field), then polls until the report is
  ready; most hand in during the last part before the deadline (the rush); some hand in a
  buggy file first and a correct one later; some hand in late (a penalty), some of those
  with an extension the instructor gave before the deadline (no penalty);
- during the minimax's rush the server is killed with SIGKILL and started again with the
  same command; a student whose hand-in got no answer looks at their history once the page
  is back and hands in again only when it is not there;
- during the Monte Carlo's rush the LMS's scores endpoint is down for ``outage`` seconds;
- after the Monte Carlo's late window the instructor changes its configuration on the page
  and regrades it, and adjusts a few hand-ins of each assignment.

    drill = Drill(folder, Term(students=20))
    with drill:                      # the platform and the server; stopped on leaving
        drill.run()
        report = semester_report.check(drill)
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import hashlib
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
from lti_platform import (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY,
                          SCOPE_SCORE, LtiPlatform, parse_autopost)
from service_helpers import ROOT, Server, free_port, make_certificate, start_https

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
LINKS = {"minimax": "rl-minimax-handin", "montecarlo": "rl-montecarlo-handin"}
FILE_NAMES = {"minimax": "mm_player.py", "montecarlo": "mc_player.py"}
GRADER = ROOT / "tests" / "submissions"
KNOWN = ROOT / "grader" / "assignments"
MONTECARLO = KNOWN / "montecarlo" / "submissions"
# (file, share): what the students hand in. FAST: files graded in about a second each.
FAST = {"minimax": [(GRADER / "grader" / "correct_memoised.py", 4),
                    (GRADER / "class" / "alphabeta.py", 3), (GRADER / "batch" / "constant.py", 2),
                    (KNOWN / "minimax" / "submissions" / "bug_no_clone.py", 1)],
        "montecarlo": [(MONTECARLO / "correct_course_style.py", 4),
                       (MONTECARLO / "correct_clone.py", 2), (MONTECARLO / "bug_full_square.py", 1),
                       (MONTECARLO / "bug_wrong_side.py", 1)]}
REALISTIC = {"minimax": [(GRADER / "grader" / "correct_memoised.py", 30),
                         (GRADER / "class" / "alphabeta.py", 25),
                         (GRADER / "grader" / "correct_pruned.py", 12),
                         (GRADER / "grader" / "correct_plain.py", 8),
                         (GRADER / "grader" / "bug_crash.py", 4),
                         (GRADER / "grader" / "bug_sign_error_o.py", 3),
                         (GRADER / "grader" / "bug_no_base_case.py", 3),
                         (GRADER / "grader" / "bug_draws_as_losses.py", 3),
                         (GRADER / "batch" / "constant.py", 4)],
             "montecarlo": [(MONTECARLO / "correct_course_style.py", 25),
                            (MONTECARLO / "correct_clone.py", 12),
                            (MONTECARLO / "correct_deepcopy.py", 10),
                            (MONTECARLO / "correct_randrange.py", 10)]
             + [(path, 4) for path in sorted(MONTECARLO.glob("bug_*.py"))]}
FIRST_TRY = {"minimax": GRADER / "batch" / "constant.py",          # a resubmitter's first file
             "montecarlo": MONTECARLO / "bug_min_not_max.py"}
PENALTY = "10%/day,max=50%"          # any late hand-in: 10 points of 100
NEW_CONFIG = "[rubric]\nmc_trial = 15\ngame play = 15\n"    # the Monte Carlo, changed mid-term
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
REQUEST_TIMEOUT = 120.0


@dataclass(frozen=True)
class Term:
    """The shape of a term, in seconds of the clock. Both assignments open at the start;
    the minimax's deadline is at ``window``, the Monte Carlo's at twice that; each has a
    late window of ``late`` seconds after it. Most hand-ins (``rush_share``) come in the last
    ``rush`` of each window."""

    students: int = 20
    window: float = 30.0
    rush: float = 0.4                  # the last share of a window most hand in during
    rush_share: float = 0.8
    late: float = 10.0
    outage: float = 8.0                # the LMS's scores down, in the Monte Carlo's rush
    outage_at: float = 0.7             # ... from this share of its window
    kill_at: float = 0.85              # the SIGKILL, at this share of the minimax's window
    extensions: float = 0.05           # students given their own (later) minimax deadline
    late_share: float = 0.08           # students handing in late (of them: the extended)
    resubmit: float = 0.1              # students handing in a buggy file first
    adjustments: int = 3               # hand-ins adjusted per assignment
    jobs: int = 2
    scheduler: str | None = None
    realistic: bool = False            # the benchmark's mix (slower files), not the fast one
    seed: int = 42
    poll: float = 1.0                  # a waiting page's poll when the server says nothing

    def slower(self, factor: float) -> "Term":
        """The same term on a clock ``factor`` times slower (a busy machine grades slower:
        the deadlines move with it, so the same hand-ins are on time or late).

        >>> Term(window=10.0, late=4.0, outage=2.0).slower(2.0).window
        20.0
        """
        return dataclasses.replace(self, window=self.window * factor, late=self.late * factor,
                                   outage=self.outage * factor)


@dataclass
class HandIn:
    """One planned hand-in and what became of it."""

    student: str
    assignment: str
    source: Path
    at: float                          # seconds into the term
    data: bytes = b""
    late: bool = False                 # after the assignment's deadline (the student's own)
    number: int | None = None          # the submission's id, once received
    tries: int = 0                     # POSTs sent (more than one: the server was down)
    posted_at: float = 0.0             # when its last POST was sent (time.time())
    refused: str = ""
    final: dict[str, Any] = field(default_factory=dict)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class Student:
    key: str                            # the LMS's user key
    sid: str                            # the course's student id (the SIS id)
    hand_ins: list[HandIn] = field(default_factory=list)
    extension: bool = False             # their own minimax deadline, after the course's


@dataclass
class Events:
    """When things happened (time.time()), for the report."""

    start: float = 0.0
    deadlines: dict[str, float] = field(default_factory=dict)
    late_deadlines: dict[str, float] = field(default_factory=dict)
    killed: float = 0.0
    restarted: float = 0.0
    down: float = 0.0
    up: float = 0.0
    regraded: float = 0.0
    adjusted: dict[int, tuple[float, str]] = field(default_factory=dict)   # number: points
    rushes: dict[str, tuple[float, float]] = field(default_factory=dict)
    latencies: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    resent: int = 0                     # hand-ins sent again after the server came back
    found_after_restart: int = 0        # ... or found in the history, received already
    finished: float = 0.0


def class_files(count: int, mix: list[tuple[Path, int]], rng: random.Random) -> list[Path]:
    """``count`` files in the mix's proportions (largest remainders), shuffled."""
    total = sum(share for _, share in mix)
    exact = [(path, count * share / total) for path, share in mix]
    files = [path for path, amount in exact for _ in range(int(amount))]
    rest = sorted(exact, key=lambda pair: pair[1] - int(pair[1]), reverse=True)
    files += [path for path, _ in rest[:count - len(files)]]
    rng.shuffle(files)
    return files


def plan_term(term: Term) -> list[Student]:
    """Who hands in what, when (deterministic for the term's seed)."""
    rng = random.Random(term.seed)
    mixes = REALISTIC if term.realistic else FAST
    students = [Student(f"u{number:04d}", f"S{number:04d}") for number in
                range(1, term.students + 1)]
    count = len(students)
    late = set(rng.sample(range(count), max(1, round(term.late_share * count))))
    extended = set(rng.sample(sorted(late), max(1, round(term.extensions * count))))
    again = set(rng.sample(range(count), round(term.resubmit * count)))
    for index, assignment in enumerate(("minimax", "montecarlo")):
        opens, deadline = (0.0, term.window) if index == 0 else (0.0, 2 * term.window)
        files = class_files(count, mixes[assignment], rng)
        for number, (student, source) in enumerate(zip(students, files)):
            rush_start = deadline - term.rush * term.window
            if number in late and (index == 0 or number not in extended):
                at = deadline + rng.uniform(0.15, 0.7) * term.late
            elif rng.random() < term.rush_share:
                at = rng.uniform(rush_start, deadline - 1.0)
            else:
                at = rng.uniform(opens + 1.0, rush_start)
            if number in again:
                first = max(opens + 0.5, at - rng.uniform(0.3, 0.6) * term.window)
                student.hand_ins.append(HandIn(student.sid, assignment,
                                               FIRST_TRY[assignment], first))
            student.hand_ins.append(HandIn(student.sid, assignment, source, at))
            student.extension = student.extension or (index == 0 and number in extended)
    for student in students:
        student.hand_ins.sort(key=lambda one: one.at)
        for order, one in enumerate(student.hand_ins, 1):
            text = one.source.read_text(encoding="utf-8")
            one.data = (f"# {student.sid}, hand-in {order} ({one.assignment}, "
                        f"{one.source.name})\n{text}").encode()
    return students


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="seconds")


async def follow_launch(client: httpx.AsyncClient, url: str, steps: int = 12) -> httpx.Response:
    """A launch followed as a browser without JavaScript does (LtiPlatform.follow_launch)."""
    response = await client.get(url)
    for _ in range(steps):
        if response.is_redirect:
            response = await client.get(urljoin(str(response.url),
                                                response.headers["location"]))
            continue
        form = parse_autopost(response.text) if response.status_code == 200 else None
        if form is None:
            return response
        action, fields = form
        response = await client.post(urljoin(str(response.url), action), data=fields)
    raise AssertionError(f"the launch did not end in {steps} steps: {response.url}")


class Drill:
    """The course, its LMS and its people; ``run()`` lives the term."""

    def __init__(self, folder: Path, term: Term, say: Any = print) -> None:
        self.folder = Path(folder)
        self.term = term
        self.say = say
        self.students = plan_term(term)
        self.events = Events()
        self.data = self.folder / "course"
        self.server: Server | None = None
        self.platform: LtiPlatform | None = None
        self.instructor: httpx.Client | None = None
        self.certificate: tuple[Path, Path] | None = None
        self.url = ""
        self.items: dict[str, str] = {}          # assignment -> the platform's line item key
        self.tokens: dict[str, str] = {}         # student id -> their link's token
        self._up: Any = None                     # asyncio.Event: the server answers

    # -- the course ----------------------------------------------------------------------

    def __enter__(self) -> "Drill":
        self.folder.mkdir(parents=True, exist_ok=True)
        self.certificate = make_certificate(self.folder)
        os.environ["SSL_CERT_FILE"] = str(self.certificate[0])
        platform = LtiPlatform(profile="canvas", url_host="localhost")
        platform.serve_tls(*map(str, self.certificate)).start()
        self.platform = platform
        for student in self.students:
            platform.add_user(student.key, f"Student {student.sid}",
                              f"{student.sid.lower()}@example.edu", sourcedid=student.sid)
        first = next(iter(platform.line_items))
        platform.add_line_item("Monte Carlo hand-in", 100, resource_link_id=LINKS["montecarlo"],
                               tag="grade", resource_id="montecarlo")
        self.items = {"minimax": first, "montecarlo": list(platform.line_items)[-1]}
        self.url = f"https://127.0.0.1:{free_port()}"
        self._import_roster()
        self.start_server()
        self.instructor = httpx.Client(timeout=REQUEST_TIMEOUT)
        signed_in = self.instructor.get(f"{self.url}/s/{self.tokens['instructor']}")
        assert signed_in.status_code in (302, 303), signed_in.text[:300]
        self._register_and_bind()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.instructor is not None:
            self.instructor.close()
        if self.server is not None:
            self.server.stop()
        if self.platform is not None:
            self.platform.stop()
        os.environ.pop("SSL_CERT_FILE", None)

    def _import_roster(self) -> None:
        """The class list, as the instructor imports it before the term (ids are the SIS
        ids the LMS sends: each student's first launch links them)."""
        roster = self.folder / "roster.csv"
        roster.write_text("id,name,email\n" + "".join(
            f"{s.sid},Student {s.sid},{s.sid.lower()}@example.edu\n" for s in self.students))
        done = subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(self.data),
                               "--roster", str(roster), "--links"], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        links = done.stdout.removeprefix("\ufeff")
        self.tokens = {row["student_id"]: row["link"].rsplit("/", 1)[1]
                       for row in csv.DictReader(links.splitlines())}

    def command_options(self) -> list[str]:
        options = ["--base-url", self.url, "--lti-allow-private", "--jobs", str(self.term.jobs),
                   "--assignment", "minimax", "--assignment", "montecarlo", "--per-hour", "0"]
        return options + (["--scheduler", self.term.scheduler] if self.term.scheduler else [])

    def start_server(self) -> None:
        """``grader serve`` over HTTPS, the same command every time."""
        assert self.certificate is not None
        port = int(self.url.rsplit(":", 1)[1])
        self.server = start_https(self.data, port, *self.certificate, *self.command_options())

    def _register_and_bind(self) -> None:
        """Dynamic Registration from the tool's LTI page; the instructor's launches bind the
        course and each link to its assignment."""
        assert self.instructor is not None and self.platform is not None
        page = self.instructor.get(self.url + "/instructor/lti").text
        found = re.search(r'<code class="link">\s*(https://[^<\s]+/lti/register/[^<\s]+)', page)
        assert found, "the LTI page shows the registration URL"
        with httpx.Client(timeout=30.0, follow_redirects=True) as admin:
            self.platform.register_dynamically(found.group(1), client=admin)
        with httpx.Client(timeout=30.0) as alan:
            page = self.platform.follow_launch(self.launch_url("alan", "montecarlo",
                                               custom={"assignment": "montecarlo"}), alan)
            assert "/instructor" in str(page.url), page.url
            page = self.platform.follow_launch(self.launch_url("alan", "minimax"), alan)
            assert "/instructor/lti/link" in str(page.url), page.url
            fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"',
                                     page.text))
            chosen = alan.post(self.url + "/instructor/lti/link",
                               data={**fields, "assignment": "minimax"})
            assert chosen.status_code == 303, chosen.text[:300]

    def launch_url(self, who: str, assignment: str, **options: Any) -> str:
        assert self.platform is not None
        item = self.platform.line_items[self.items[assignment]]
        claim = {"scope": [SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY,
                           SCOPE_SCORE],
                 "lineitems": self.platform.lineitems_url, "lineitem": item["id"]}
        return self.platform.launch_url(who, method="post", resource_link_id=LINKS[assignment],
                                        extra_claims={AGS: claim}, **options)

    def api(self, method: str, path: str, **options: Any) -> httpx.Response:
        """The instructor's request to the JSON API (their Bearer token)."""
        assert self.server is not None
        with httpx.Client(timeout=REQUEST_TIMEOUT, headers={
                "authorization": f"Bearer {self.server.instructor_token()}"}) as client:
            return client.request(method, self.url + path, **options)

    # -- the term ------------------------------------------------------------------------

    def run(self) -> None:
        """Live the term: set the dates, then every student and the instructor on the clock;
        returns once every hand-in has its report and the outbox is empty (or the limit)."""
        term = self.term
        start = time.time() + 2.0
        events = self.events
        events.start = start
        for index, assignment in enumerate(("minimax", "montecarlo")):
            # whole seconds, as the course's dates are written
            deadline = float(round(start + (index + 1) * term.window))
            events.deadlines[assignment] = deadline
            events.late_deadlines[assignment] = float(round(deadline + term.late))
            answer = self.api("PUT", f"/api/assignments/{assignment}", json={
                "deadline": iso(deadline), "late_deadline": iso(deadline + term.late),
                "late_penalty": PENALTY})
            assert answer.status_code == 200, answer.text
            events.rushes[assignment] = (deadline - term.rush * term.window, deadline)
        for student in self.students:
            if student.extension:
                own = events.late_deadlines["minimax"]
                answer = self.api("PUT", f"/api/assignments/minimax/students/{student.sid}"
                                  "/deadline", json={"deadline": iso(own),
                                                     "late_deadline": iso(own)})
                assert answer.status_code == 200, answer.text
        for student in self.students:
            for one in student.hand_ins:
                one.late = start + one.at > self.deadline_of(student, one.assignment)
        asyncio.run(self._term())

    def deadline_of(self, student: Student, assignment: str) -> float:
        """The student's deadline for ``assignment`` (their own with an extension)."""
        if student.extension and assignment == "minimax":
            return self.events.late_deadlines["minimax"]
        return self.events.deadlines[assignment]

    def closing_of(self, student: Student, assignment: str) -> float:
        """When ``assignment`` closes for the student: their deadline and the late window
        after it (an extension keeps the window)."""
        window = self.events.late_deadlines[assignment] - self.events.deadlines[assignment]
        return self.deadline_of(student, assignment) + window

    async def _term(self) -> None:
        self._up = asyncio.Event()
        self._up.set()
        people = [asyncio.create_task(self._student(student)) for student in self.students]
        accidents = asyncio.create_task(self._accidents())
        await asyncio.gather(*people)
        await accidents
        # The term is over and every hand-in has its report: the instructor's part.
        await asyncio.to_thread(self._change_and_regrade)
        self.events.regraded = time.time()
        await asyncio.to_thread(self._adjust)

    async def _student(self, student: Student) -> None:
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
            launched: set[str] = set()
            watching: list[asyncio.Task] = []     # a page left open on each hand-in
            for one in student.hand_ins:
                await asyncio.sleep(max(0.0, self.events.start + one.at - time.time()))
                while True:
                    try:
                        await self._hand_in(client, student, one, launched)
                        break
                    except httpx.TransportError:       # the server is down: back soon
                        self._count("hand-in: no answer")
                        await self._up.wait()
                        await asyncio.sleep(0.5)
                        if not one.tries:             # not handed in yet (in its launch)
                            continue
                        if await self._received_already(client, one):
                            self.events.found_after_restart += 1
                            break
                        self.events.resent += 1
                if one.number is not None:
                    watching.append(asyncio.create_task(self._watch(client, one)))
            await asyncio.gather(*watching)

    async def _timed(self, client: httpx.AsyncClient, kind: str, method: str, url: str,
                     **options: Any) -> httpx.Response:
        started = time.perf_counter()
        answer = await client.request(method, url, **options)
        self.events.latencies.setdefault(kind, []).append(
            (time.time(), time.perf_counter() - started))
        if answer.status_code >= 500:
            self._count(f"{kind}: HTTP {answer.status_code}")
        return answer

    async def _hand_in(self, client: httpx.AsyncClient, student: Student, one: HandIn,
                       launched: set[str]) -> None:
        """Launch from the assignment's link (once), open its page, hand in with its form."""
        page_url = f"{self.url}/?assignment={one.assignment}"
        if one.assignment not in launched:
            page = await follow_launch(client, self.launch_url(student.key, one.assignment))
            assert f"?assignment={one.assignment}" in str(page.url), page.url
            launched.add(one.assignment)
        else:
            page = await self._timed(client, "home page", "GET", page_url)
        for _ in range(600):
            csrf = CSRF.search(page.text)
            assert csrf, page.text[:500]
            one.tries += 1
            one.posted_at = time.time()
            answer = await self._timed(
                client, "hand in (form POST)", "POST", self.url + "/submit",
                data={"csrf": csrf.group(1), "assignment": one.assignment},
                files={"file": (FILE_NAMES[one.assignment], one.data)})
            if answer.status_code == 303:
                one.number = int(answer.headers["location"].rsplit("/", 1)[1])
                return
            if answer.status_code == 409:          # the previous one is still being graded
                await asyncio.sleep(1.0)
                page = await self._timed(client, "home page", "GET", page_url)
                continue
            found = re.search(r'class="refusal" role="alert">([^<]*)<', answer.text)
            one.refused = f"HTTP {answer.status_code}: " + (found.group(1) if found else
                                                            answer.text[:200])
            self._count(f"hand-in refused: HTTP {answer.status_code}")
            return

    async def _received_already(self, client: httpx.AsyncClient, one: HandIn) -> bool:
        """After no answer: is the hand-in in the student's history (received before the
        server went down)? Then it counts, and is not handed in again."""
        history = (await client.get(self.url + "/api/submissions")).json()["submissions"]
        for entry in history:
            if entry.get("sha256") == one.sha256:
                one.number = int(entry["id"])
                return True
        return False

    async def _watch(self, client: httpx.AsyncClient, one: HandIn) -> None:
        """Poll the hand-in's status as the page's script does, until its report."""
        url = f"{self.url}/api/submissions/{one.number}"
        while True:
            try:
                state = await self._timed(client, "progress (JSON poll)", "GET", url)
            except httpx.TransportError:
                self._count("poll: no answer")
                await self._up.wait()
                await asyncio.sleep(1.0)
                continue
            data = state.json() if state.status_code == 200 else {}
            if data.get("status") in ("done", "error"):
                one.final = data
                return
            await asyncio.sleep(data.get("poll_after") or self.term.poll)

    def _count(self, what: str) -> None:
        self.events.errors[what] = self.events.errors.get(what, 0) + 1

    # -- the instructor and the accidents -------------------------------------------------

    async def _at(self, moment: float) -> None:
        await asyncio.sleep(max(0.0, moment - time.time()))

    async def _accidents(self) -> None:
        """The SIGKILL in the minimax's rush, the LMS down in the Monte Carlo's."""
        term, events = self.term, self.events
        assert self.platform is not None and self.server is not None
        await self._at(events.start + term.kill_at * term.window)
        events.killed = time.time()
        self.say("SIGKILL the server in the minimax's rush")
        self._up.clear()
        self.server.stop(kill=True)
        await asyncio.to_thread(self.start_server)
        events.restarted = time.time()
        self._up.set()
        self.say(f"started again in {events.restarted - events.killed:.1f} s")
        await self._at(events.start + term.window + term.outage_at * term.window)
        events.down = time.time()
        self.platform.scores_down()
        self.say(f"the LMS's scores down for {term.outage:g} s")
        await self._at(events.down + term.outage)
        self.platform.restore()
        events.up = time.time()

    def _change_and_regrade(self) -> None:
        """The Monte Carlo's configuration changed on its page, then its class regraded."""
        assert self.instructor is not None
        page = self.instructor.get(self.url + "/instructor/config?assignment=montecarlo")
        saved = self.instructor.post(self.url + "/instructor/config", data={
            "csrf": CSRF.search(page.text).group(1), "assignment": "montecarlo",
            "config": NEW_CONFIG, "name": "montecarlo-term.cfg"})
        assert saved.status_code in (200, 303), saved.text[:500]
        page = self.instructor.get(self.url + "/instructor?assignment=montecarlo")
        regraded = self.instructor.post(self.url + "/instructor/regrade", data={
            "csrf": CSRF.search(page.text).group(1), "assignment": "montecarlo"})
        assert regraded.status_code == 303, regraded.text[:500]
        self.say(f"the Monte Carlo's configuration changed and its class regraded: "
                 f"{regraded.headers['location']}")

    def _adjust(self) -> None:
        """A few hand-ins of each assignment adjusted (their last, the counted ones)."""
        rng = random.Random(self.term.seed + 1)
        for assignment in ("minimax", "montecarlo"):
            counted = [[one for one in student.hand_ins if one.assignment == assignment][-1]
                       for student in self.students]
            chosen = [one for one in counted if one.number is not None]
            for one in rng.sample(chosen, min(self.term.adjustments, len(chosen))):
                points = rng.choice([5.0, -5.0, 2.5])
                answer = self.api("POST", f"/api/submissions/{one.number}/adjustment",
                                  json={"points": points, "note": "the drill's adjustment"})
                assert answer.status_code == 200, answer.text
                self.events.adjusted[one.number] = (points, time.time())

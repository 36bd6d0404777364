"""The instructor's pages of ``grader serve``: the class, the queue, the roster and the links,
the gradebook and the summary (``batch``'s own), similarity, retries, the configuration and
regrading everyone.

Every route needs the instructor's sign-in (the session of the instructor's link, or the
instructor's token as ``Authorization: Bearer``); a student gets 403, a stranger 401, and
neither learns anything. Every form carries the session's CSRF token; every page is a
Jinja2 template with autoescaping (``batch``'s summary page escapes what it shows itself).

    /instructor                      the class: one row per student
    /instructor/students/ID          a student: submissions, reports, files, their link
    /instructor/submissions/N        a submission's page (its report in full), /file, /retry
    /instructor/queue                waiting, running, on which worker
    /instructor/roster               import a roster CSV; /instructor/links.csv the links
    /instructor/summary              batch's summary.html, live (?choice=latest|best)
    /instructor/similarity           compare every student's latest file (copydetect)
    /instructor/config               the grading configuration; POST /instructor/regrade
    /api/gradebook.csv?choice=latest|best, /api/class (JSON)
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import logging
import multiprocessing
import re
import shutil
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.classroom import similarity as similar
from grader.classroom import summary
from grader.classroom.state import graded_under
from grader.service import auth, class_queries, classbook, storage
from grader.service.pages import CSP, render
from grader.service.student_routes import file_response, render_submission
from grader.classroom.roster import RosterError, parse_roster
from grader.suite import table, writers
from grader.suite.config import DEFAULT_CONFIG, Config, ConfigError, grader_version

log = logging.getLogger("grader.service")

CONFIGS = "configs"              # DATA/configs/NNN-name.cfg: every configuration used
CONFIG_SETTING = "config_file"   # the store's setting: the configuration in use now
SIMILARITY = "similarity"        # DATA/similarity/: the last comparison's CSV and pages
MAX_UPLOAD = 1024 * 1024         # a roster or a configuration file
LINKS_COLUMNS = ["student_id", "name", "email", "link"]
# The summary's advice is batch's; here the instructor regrades from the page.
BATCH_ADVICE = ("Run the batch again with <code>--regrade-changed</code> to grade every "
                "submission under one.")
SERVE_ADVICE = ('<a href="/instructor/config">Regrade everyone</a> to grade each student\'s '
                "latest submission under the current one.")
# The notes a redirect may ask the class page to show (never text from the URL itself).
NOTES = {"regraded": "{n} submissions queued to be graded again under the current "
                     "configuration (each keeps its earlier result).",
         "renewed": "A new link was made; the old one no longer signs in.",
         "revoked": "The link was revoked: it now gets the refusal page.",
         "retried": "Queued to be graded again."}


# --- helpers -----------------------------------------------------------------------------

def _state(request: Request) -> Any:
    return request.app.state


def _store(request: Request) -> storage.Store:
    return request.app.state.store


def _base_url(request: Request) -> str:
    return (_state(request).settings.base_url or str(request.base_url)).rstrip("/")


def _note(request: Request) -> str:
    text = NOTES.get(request.query_params.get("did", ""), "")
    count = request.query_params.get("n", "")
    return text.format(n=int(count) if count.isdigit() else "Some")


def _choice(request: Request) -> str:
    choice = request.query_params.get("choice", "latest")
    if choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {choice[:20]!r}")
    return choice


def _student_or_404(request: Request) -> storage.Student:
    student = _store(request).student(request.path_params["student_id"])
    if student is None:
        raise HTTPException(404, "there is no such student in the roster")
    return student


def _submission_or_404(request: Request) -> storage.SubmissionRow:
    row = _store(request).submission(request.path_params["number"])
    if row is None:
        raise HTTPException(404, f"there is no submission {request.path_params['number']}")
    return row


async def _form(request: Request) -> Any:
    form = await request.form(max_files=2, max_fields=10, max_part_size=MAX_UPLOAD)
    auth.require_csrf(request, form)
    return form


def _csv(text: str, name: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{name}"',
                             "cache-control": "no-store"})


def _with_inline_styles(html: str) -> HTMLResponse:
    """A page of ``batch`` (one file with its own <style>): the CSP allows exactly those
    styles by their hash, and still no script at all."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
        for style in re.findall(r"<style>(.*?)</style>", html, flags=re.S))
    policy = CSP.replace("style-src 'self'", f"style-src 'self' {hashes}".rstrip())
    return HTMLResponse(html, headers={"content-security-policy": policy,
                                       "cache-control": "no-store"})


def _wake(request: Request, times: int) -> None:
    queue = _state(request).queue
    for _ in range(max(1, min(times, queue.jobs))):
        queue.wake()


# --- the configuration -------------------------------------------------------------------

def current_grading(request: Request) -> Any:
    """The grading options new gradings use (the queue's)."""
    return _state(request).queue.options.grading


def forgotten_config(request: Request) -> str:
    """The configuration last chosen on the configuration page when the server does not
    use it (it was started again with another ``--config``, or none), else ""."""
    chosen = _store(request).get_setting(CONFIG_SETTING)
    used = current_grading(request).config
    if not chosen or (used is not None and Path(used).resolve() == Path(chosen).resolve()):
        return ""
    return chosen


def current_fingerprint(grading: Any) -> str:
    """The fingerprint a result graded now records (as ``batch`` computes it). The grader's
    version is a hash of its source, read again: an upgrade while serving shows."""
    grader_version.cache_clear()
    try:
        return graded_under(grading).fingerprint
    except ConfigError:
        return ""


def use_config(queue: Any, path: Path) -> None:
    """Grade from now on under the configuration file at ``path``."""
    grading = dataclasses.replace(queue.options.grading, config=Path(path).resolve())
    reconfigure = getattr(queue, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(grading)
        return
    from grader.service.queue import config_label
    weights = Config.load(grading.config, grading.checks).weights
    queue.options = dataclasses.replace(queue.options, grading=grading)
    queue.label = config_label(grading)
    queue.weights = weights


def save_config(data: Path, text: str, name: str) -> Path:
    """Keep ``text`` as DATA/configs/NNN-NAME.cfg (every configuration ever used stays,
    so that each result's configuration can still be read)."""
    folder = Path(data) / CONFIGS
    folder.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"^\d{3}-", "", Path(name).stem)      # a saved one, edited again
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem)[:40].strip("._-") or "config"
    number = 1 + max((int(path.name[:3]) for path in folder.glob("[0-9][0-9][0-9]-*.cfg")),
                     default=0)
    path = folder / f"{number:03d}-{stem}.cfg"
    writers.write_text_atomic(path, text)
    return path


# --- the class -----------------------------------------------------------------------------

async def class_page(request: Request) -> Response:
    """``/instructor``: one row per student, and what their results were graded under."""
    auth.require_instructor(request)
    store = _store(request)
    students = await run_in_threadpool(classbook.class_students, store)
    grading = current_grading(request)
    current = await run_in_threadpool(current_fingerprint, grading)
    used = classbook.configurations(students, current)
    return render(request, "instructor_class.html", {
        "students": students, "counts": store.counts(), "configurations": used,
        "mixed": len(used) > 1, "current": current,
        "config_name": grading.config.name if grading.config else "default",
        "stale": sum(configuration.count for configuration in used
                     if configuration.fingerprint != current),
        "forgotten": forgotten_config(request), "note": _note(request)})


async def class_json(request: Request) -> Response:
    """``GET /api/class``: every student with their counts, latest and best result."""
    auth.require_instructor(request)
    students = await run_in_threadpool(classbook.class_students, _store(request))
    current = await run_in_threadpool(current_fingerprint, current_grading(request))

    def brief(handed: classbook.Handed | None) -> dict[str, Any] | None:
        if handed is None:
            return None
        return {"id": handed.id, "status": handed.status, "score": handed.score,
                "max_score": handed.max_score, "late": handed.late,
                "received_at": handed.received_at, "config": handed.fingerprint}

    used = classbook.configurations(students, current)
    return JSONResponse({
        "students": [{"student_id": student.student_id, "name": student.name,
                      "email": student.email, "revoked": student.revoked,
                      "submissions": len(student.submissions), "late": student.late_count,
                      "status": student.status, "latest": brief(student.latest),
                      "latest_graded": brief(student.chosen("latest")),
                      "best": brief(student.best)} for student in students],
        "configuration": {"current": current, "mixed": len(used) > 1,
                          "used": [dataclasses.asdict(one) for one in used]}},
        headers={"cache-control": "no-store"})


async def student_page(request: Request) -> Response:
    """``/instructor/students/ID``: their submissions, reports, files and link."""
    auth.require_instructor(request)
    person = _student_or_404(request)
    store = _store(request)
    rows = await run_in_threadpool(class_queries.class_submissions, store, person.id)
    submissions = [classbook.Handed.of(row) for row in reversed(rows)]
    link = "" if person.revoked else f"{_base_url(request)}/s/{store.student_token(person.id)}"
    return render(request, "instructor_student.html", {
        "person": person, "submissions": submissions, "link": link,
        "current": await run_in_threadpool(current_fingerprint, current_grading(request)),
        "note": _note(request)})


async def revoke(request: Request) -> Response:
    """Revoke a student's link: it gets the refusal page from now on."""
    auth.require_instructor(request)
    await _form(request)
    person = _student_or_404(request)
    _store(request).set_revoked(person.id, True)
    log.info("the instructor revoked the link of %s", person.id)
    return RedirectResponse(f"/instructor/students/{person.id}?did=revoked", status_code=303)


async def renew(request: Request) -> Response:
    """A new link for a student (the old one stops working; a revoked one is restored)."""
    auth.require_instructor(request)
    await _form(request)
    person = _student_or_404(request)
    _store(request).renew_student_token(person.id)
    log.info("the instructor renewed the link of %s", person.id)
    return RedirectResponse(f"/instructor/students/{person.id}?did=renewed", status_code=303)


async def submission_page(request: Request) -> Response:
    """A submission's page as the instructor sees it (the report in full)."""
    auth.require_instructor(request)
    return render_submission(request, _submission_or_404(request), instructor=True)


async def submission_file(request: Request) -> Response:
    """The file a student handed in, as a download."""
    auth.require_instructor(request)
    return file_response(_store(request), _submission_or_404(request))


async def retry(request: Request) -> Response:
    """Grade a submission again (a grader error, or a result to redo): its earlier result
    is kept, and it stays one submission in the student's history."""
    auth.require_instructor(request)
    await _form(request)
    row = _submission_or_404(request)
    queued = class_queries.regrade_submissions(_store(request), [row.id])
    if queued:
        _wake(request, 1)
        log.info("the instructor queued submission %s again", row.id)
    return RedirectResponse(f"/instructor/students/{row.student}?did=retried", status_code=303)


async def regrade_everyone(request: Request) -> Response:
    """Each student's newest submission graded again under the current configuration."""
    auth.require_instructor(request)
    await _form(request)
    store = _store(request)
    students = await run_in_threadpool(classbook.class_students, store)
    latest = [student.latest.id for student in students if student.latest is not None]
    queued = await run_in_threadpool(class_queries.regrade_submissions, store, latest)
    _wake(request, len(queued))
    log.info("the instructor queued %d submissions to be graded again", len(queued))
    return RedirectResponse(f"/instructor?did=regraded&n={len(queued)}", status_code=303)


# --- the queue -------------------------------------------------------------------------------

async def queue_page(request: Request) -> Response:
    """``/instructor/queue``: waiting, running (on which worker), grader errors."""
    auth.require_instructor(request)
    store = _store(request)
    queue = _state(request).queue
    # the class query, not the queue's: it reads no results.json (a regrade queues many)
    rows = sorted(await run_in_threadpool(class_queries.class_submissions, store),
                  key=lambda row: row.id)            # the order they are taken in
    return render(request, "instructor_queue.html", {
        "running": [row for row in rows if row.status == "running"],
        "waiting": [row for row in rows if row.status == "queued"],
        "workers": sorted(dict(queue.workers).items()), "jobs": queue.jobs,
        "scheduler": queue.options.scheduler, "counts": store.counts(),
        "errors": [row for row in rows if row.status == "error"]})


# --- the roster and the links ------------------------------------------------------------

async def roster_page(request: Request) -> Response:
    """``/instructor/roster``: the import form and the links CSV."""
    auth.require_instructor(request)
    return render(request, "instructor_roster.html", {"outcome": None, "problem": None,
                                                      "count": len(_store(request).students())})


async def roster_import(request: Request) -> Response:
    """Add or update the students of an uploaded roster CSV: all of it, or nothing."""
    auth.require_instructor(request)
    form = await _form(request)
    upload = form.get("roster")
    store = _store(request)
    context: dict[str, Any] = {"outcome": None, "problem": None}
    if not isinstance(upload, UploadFile) or not upload.filename:
        context["problem"] = "no file: choose the roster's .csv file"
        return render(request, "instructor_roster.html",
                      {**context, "count": len(store.students())}, 400)
    name = Path(upload.filename).name[:100]
    try:
        roster = parse_roster(await upload.read(), name)
        outcome = await run_in_threadpool(_import, store, roster)
    except RosterError as problem:
        context["problem"] = str(problem)
        return render(request, "instructor_roster.html",
                      {**context, "count": len(store.students())}, 400)
    log.info("roster %s: %d added, %d updated", name, len(outcome["added"]),
             len(outcome["updated"]))
    return render(request, "instructor_roster.html",
                  {**context, "outcome": outcome, "name": name, "count": len(store.students())})


def _import(store: storage.Store, roster: Any) -> dict[str, Any]:
    """Sort the roster's entries into added, updated and unchanged, then store them in one
    transaction. A RosterError (nothing stored) when an id differs from a known student's
    only by capitals."""
    known = {student.id: student for student in store.students()}
    folded = {student_id.casefold(): student_id for student_id in known}
    clashes = [f"{entry.student_id!r} (the course has {folded[entry.student_id.casefold()]!r})"
               for entry in roster.entries if entry.student_id not in known
               and entry.student_id.casefold() in folded]
    if clashes:
        raise RosterError("nothing was imported: these ids differ from students of the course "
                          "only by capitals (write them as the course has them): "
                          + "; ".join(clashes[:10]))
    added = [entry for entry in roster.entries if entry.student_id not in known]
    updated = [entry for entry in roster.entries if entry.student_id in known
               and (known[entry.student_id].name, known[entry.student_id].email)
               != (entry.name, entry.email)]
    store.upsert_students((entry.student_id, entry.name, entry.email)
                          for entry in roster.entries)
    listed = {entry.student_id for entry in roster.entries}
    return {"added": added, "updated": updated,
            "unchanged": len(roster.entries) - len(added) - len(updated),
            "not_listed": sorted(student_id for student_id in known if student_id not in listed),
            "notes": roster.notes, "columns": roster.columns}


async def links_csv(request: Request) -> Response:
    """Every student's sign-in link (not the revoked), then the instructor's, as CSV for a
    mail merge: student_id,name,email,link."""
    auth.require_instructor(request)
    links = _store(request).student_links(_base_url(request))
    rows = [{"student_id": link.student_id, "name": link.name, "email": link.email,
             "link": link.link} for link in links]
    return _csv(table.csv_text(LINKS_COLUMNS, rows), "links.csv")


# --- the gradebook and the summary ---------------------------------------------------------

async def gradebook_csv(request: Request) -> Response:
    """``GET /api/gradebook.csv?choice=latest|best``: batch's gradebook, one row per student."""
    auth.require_instructor(request)
    choice = _choice(request)
    store = _store(request)

    def build() -> str:
        students = classbook.class_students(store)
        return classbook.gradebook_csv(classbook.gradebook_rows(store, students, choice))

    return _csv(await run_in_threadpool(build), f"gradebook-{choice}.csv")


async def summary_page(request: Request) -> Response:
    """``batch``'s summary.html, live, from the chosen result of each student."""
    auth.require_instructor(request)
    choice = _choice(request)
    store = _store(request)
    found = None if _comparing(request) else classbook.load_similarity(
        _similarity_folder(request))

    def build() -> str:
        students = classbook.class_students(store)
        rows = classbook.gradebook_rows(store, students, choice)
        return summary.summary_html(rows, f"Class summary ({choice} submission of each "
                                          "student)", similarity=found)

    html = (await run_in_threadpool(build)).replace(BATCH_ADVICE, SERVE_ADVICE)
    back = ('<p><a href="/instructor">Back to the class</a> · '
            f'<a href="/instructor/summary?choice={"best" if choice == "latest" else "latest"}">'
            f'{"best" if choice == "latest" else "latest"} submission of each</a></p>')
    return _with_inline_styles(html.replace("<body>", "<body>" + back, 1))


# --- similarity ------------------------------------------------------------------------------

def _similarity(request: Request) -> dict[str, Any]:
    """The app's similarity state: the comparison's process while it runs."""
    state = _state(request)
    if not hasattr(state, "instructor_similarity"):
        state.instructor_similarity = {}
    return state.instructor_similarity


def _similarity_folder(request: Request) -> Path:
    return Path(_state(request).settings.data) / SIMILARITY


def _comparing(request: Request) -> bool:
    process = _similarity(request).get("process")
    return process is not None and process.is_alive()


async def similarity_page(request: Request) -> Response:
    """``/instructor/similarity``: the running comparison, or the last one's pairs."""
    auth.require_instructor(request)
    running = _comparing(request)
    folder = _similarity_folder(request)
    found = None if running else classbook.load_similarity(folder)
    problem = _similarity(request).get("problem") or (
        None if running else classbook.similarity_problem(folder))
    return render(request, "instructor_similarity.html", {
        "running": running, "problem": problem, "found": found,
        "section": "\n".join(summary.similarity_section(found)) if found else "",
        "install": similar.INSTALL_HINT}, headers={"refresh": "3"} if running else None)


async def similarity_run(request: Request) -> Response:
    """Compare each student's newest file with every other one (copydetect), in a process
    of its own: the server stays responsive, and stopping the server stops it."""
    auth.require_instructor(request)
    await _form(request)
    found_state = _similarity(request)
    found_state.pop("problem", None)
    try:
        similar.require_copydetect()
    except similar.SimilarityError:
        found_state["problem"] = ("similarity needs copydetect, which is not installed: "
                                  f"{similar.INSTALL_HINT} (then start the server again)")
        return RedirectResponse("/instructor/similarity", status_code=303)
    if not _comparing(request):
        store = _store(request)
        folder = _similarity_folder(request)
        files = folder / "files"

        def gather() -> None:
            shutil.rmtree(files, ignore_errors=True)
            files.mkdir(parents=True)
            (folder / classbook.SIMILARITY_RESULT).unlink(missing_ok=True)
            for student in classbook.class_students(store):
                if student.latest is not None:
                    (files / f"{student.student_id}.py").write_bytes(
                        store.submission_bytes(student.latest.id))

        await run_in_threadpool(gather)
        process = multiprocessing.get_context("spawn").Process(
            target=classbook.compare_class, args=(files, folder), daemon=True,
            name="similarity")
        process.start()
        found_state["process"] = process
        log.info("the instructor started a similarity comparison (process %s)", process.pid)
    return RedirectResponse("/instructor/similarity", status_code=303)


async def similarity_file(request: Request) -> Response:
    """The last comparison's CSV and side-by-side pages (batch's own files)."""
    auth.require_instructor(request)
    name = request.path_params.get("page")
    folder = Path(_state(request).settings.data) / SIMILARITY
    if name is None:
        path = folder / similar.CSV_NAME
    elif re.fullmatch(r"pair-\d{3}\.html", name):
        path = folder / similar.PAGES / name
    else:
        raise HTTPException(404, "there is no such page")
    if not path.is_file():
        raise HTTPException(404, "run the comparison first (Similarity on the class page)")
    text = path.read_text(encoding="utf-8")
    if name is None:
        return _csv(text, similar.CSV_NAME)
    return _with_inline_styles(text)


# --- the configuration page --------------------------------------------------------------

async def config_page(request: Request) -> Response:
    """``/instructor/config``: the configuration in use, and a form to change it."""
    auth.require_instructor(request)
    return await run_in_threadpool(_config_response, request)


def _config_response(request: Request, problem: str | None = None, text: str | None = None,
                     saved: bool = False, status_code: int = 200) -> Response:
    grading = current_grading(request)
    path = grading.config or DEFAULT_CONFIG
    try:
        current_text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        current_text = f"# cannot read {path}: {error}\n"
    students = classbook.class_students(_store(request))
    current = current_fingerprint(grading)
    used = classbook.configurations(students, current)
    try:
        described = graded_under(grading).describe()
    except ConfigError as error:
        described = str(error)
    return render(request, "instructor_config.html", {
        "name": grading.config.name if grading.config else "default",
        "described": described, "current": current, "configurations": used,
        "text": current_text if text is None else text, "problem": problem, "saved": saved,
        "forgotten": forgotten_config(request),
        "stale": sum(one.count for one in used if one.fingerprint != current)},
        status_code=status_code)


async def config_save(request: Request) -> Response:
    """Check a configuration exactly as ``grade --config`` does; keep and use it, or
    refuse it with ``grade``'s message (nothing changes)."""
    auth.require_instructor(request)
    form = await _form(request)
    upload = form.get("file")
    name = "config.cfg"
    if isinstance(upload, UploadFile) and upload.filename:
        name = Path(upload.filename).name[:100] or name
        try:
            text = (await upload.read()).decode("utf-8-sig")
        except UnicodeDecodeError:
            return await run_in_threadpool(
                _config_response, request, f"{name} is not UTF-8 text: save it as UTF-8",
                None, False, 400)
    else:
        text = str(form.get("config") or "")
        name = str(form.get("name") or "") or name
    text = text.replace("\r\n", "\n")
    try:
        classbook.check_config(text, name)
    except ConfigError as problem:
        return await run_in_threadpool(_config_response, request, str(problem), text, False,
                                       400)
    state = _state(request)
    path = save_config(state.settings.data, text, name)
    use_config(state.queue, path)
    _store(request).set_setting(CONFIG_SETTING, str(path.resolve()))
    log.info("the instructor changed the configuration: %s", path)
    return await run_in_threadpool(_config_response, request, None, None, True)


routes = [
    Route("/instructor", class_page),
    Route("/instructor/students/{student_id}", student_page),
    Route("/instructor/students/{student_id}/revoke", revoke, methods=["POST"]),
    Route("/instructor/students/{student_id}/renew", renew, methods=["POST"]),
    Route("/instructor/submissions/{number:int}", submission_page),
    Route("/instructor/submissions/{number:int}/file", submission_file),
    Route("/instructor/submissions/{number:int}/retry", retry, methods=["POST"]),
    Route("/instructor/regrade", regrade_everyone, methods=["POST"]),
    Route("/instructor/queue", queue_page),
    Route("/instructor/roster", roster_page, methods=["GET"]),
    Route("/instructor/roster", roster_import, methods=["POST"]),
    Route("/instructor/links.csv", links_csv),
    Route("/instructor/summary", summary_page),
    Route("/instructor/summary.html", summary_page),
    Route("/instructor/similarity", similarity_page, methods=["GET"]),
    Route("/instructor/similarity", similarity_run, methods=["POST"]),
    Route("/instructor/similarity.csv", similarity_file),
    Route("/instructor/similarity/{page}", similarity_file),
    Route("/instructor/config", config_page, methods=["GET"]),
    Route("/instructor/config", config_save, methods=["POST"]),
    Route("/api/gradebook.csv", gradebook_csv),
    Route("/api/class", class_json),
]

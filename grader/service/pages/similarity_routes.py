"""The instructor's similarity pages of ``grader serve``: compare each student's newest
file with every other one (copydetect, as ``batch --similarity`` does) in a process of its
own, and show the pairs, the CSV and the side-by-side pages.

    /instructor/similarity           the running comparison, or the last one's pairs
    /instructor/similarity.csv       every pair that shares own code
    /instructor/similarity/pair-NNN.html
"""

from __future__ import annotations

import logging
import multiprocessing
import re
import shutil
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from grader.classroom import similarity as similar
from grader.classroom import summary
from grader.service.course import auth, classbook
from grader.service.course.folder import private_folder, write_private
from grader.service.pages.pages import csv_response, path_for, render, with_inline_styles

log = logging.getLogger("grader.service")

SIMILARITY = "similarity"        # DATA/similarity/: the last comparison's CSV and pages


def _state(request: Request) -> Any:
    return request.app.state


def _store(request: Request) -> Any:
    return request.app.state.store


def _similarity(request: Request) -> dict[str, Any]:
    """The app's similarity state: the comparison's process while it runs."""
    state = _state(request)
    if not hasattr(state, "instructor_similarity"):
        state.instructor_similarity = {}
    return state.instructor_similarity


def similarity_folder(request: Request) -> Path:
    return Path(_state(request).settings.data) / SIMILARITY


def comparing(request: Request) -> bool:
    process = _similarity(request).get("process")
    return process is not None and process.is_alive()


async def similarity_page(request: Request) -> Response:
    """``/instructor/similarity``: the running comparison, or the last one's pairs."""
    auth.require_grader(request)
    running = comparing(request)
    folder = similarity_folder(request)
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
    auth.require_grader(request)
    auth.require_csrf(request, await request.form(max_files=0, max_fields=5))
    found_state = _similarity(request)
    found_state.pop("problem", None)
    try:
        similar.require_copydetect()
    except similar.SimilarityError:
        found_state["problem"] = ("similarity needs copydetect, which is not installed: "
                                  f"{similar.INSTALL_HINT} (then start the server again)")
        return RedirectResponse(path_for(request, "instructor_similarity"), status_code=303)
    if not comparing(request):
        store = _store(request)
        folder = similarity_folder(request)
        files = folder / "files"

        def gather() -> None:
            shutil.rmtree(files, ignore_errors=True)
            private_folder(files)                            # 0700, as DATA itself
            (folder / classbook.SIMILARITY_RESULT).unlink(missing_ok=True)
            for entry in classbook.class_students(store):
                if entry.latest is not None:
                    write_private(files / f"{entry.student.id}.py",
                                  store.submission_bytes(entry.latest.submission.id))

        await run_in_threadpool(gather)
        process = multiprocessing.get_context("spawn").Process(
            target=classbook.compare_class, args=(files, folder), daemon=True,
            name="similarity")
        process.start()
        found_state["process"] = process
        log.info("the instructor started a similarity comparison (process %s)", process.pid)
    return RedirectResponse(path_for(request, "instructor_similarity"), status_code=303)


async def similarity_file(request: Request) -> Response:
    """The last comparison's CSV and side-by-side pages (batch's own files)."""
    auth.require_grader(request)
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
        return csv_response(text, similar.CSV_NAME)
    return with_inline_styles(text)


routes = [
    Route("/instructor/similarity", similarity_page, methods=["GET"],
          name="instructor_similarity"),
    Route("/instructor/similarity", similarity_run, methods=["POST"],
          name="instructor_similarity_run"),
    Route("/instructor/similarity.csv", similarity_file, name="instructor_similarity_csv"),
    Route("/instructor/similarity/{page}", similarity_file, name="instructor_similarity_page"),
]

"""Headless Chromium for the page's browser tests: Debian's ``chromium`` driven by
Playwright (never ``playwright install``, which downloads a browser of its own), a page per
person that records console and script errors, and the live part of a submission page
watched until its report comes. The ``chromium`` and ``shots`` fixtures are in conftest.py.

    page = new_page(browser, problems)      # its own cookies: one person
    statuses, items = watch_until_graded(page)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Site isolation off: an LMS's frame that goes from site to site (the LMS, the tool's login,
# the LMS's authorization, the tool's launch) then stays in one renderer. With it on, each
# hop is a new out-of-process frame that Playwright must attach to, and on a loaded machine
# it once lost one: the frame worked on (the LMS's storage answered it) while the test saw
# no document in it for a minute. Cookies, their partitions and postMessage's origins are
# the browser's, not the renderer's: what the tests check is the same either way.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-site-isolation-trials",
                 "--disable-features=IsolateOrigins,site-per-process"]
GRADING_MS = 300_000          # one grading run, on a loaded machine


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """Debian's chromium, headless, through Playwright; skips with the reason where either
    is missing or chromium does not start."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not "
                                   "installed (pip install -e '.[test]')")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except sync_api.Error as problem:
            pytest.skip(f"chromium does not start here: {str(problem).splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, problems: list[str], **options: Any):
    """A page in its own context (its own cookies: one person), recording what goes wrong:
    console errors (a CSP violation is one) and uncaught script errors. ``options`` go to
    the context (``ignore_https_errors=True``: a certificate made by the test)."""
    context = browser.new_context(viewport={"width": 1000, "height": 800}, accept_downloads=True,
                                  **options)
    context.set_default_timeout(60_000)
    return recorded(context.new_page(), problems)


def recorded(page, problems: list[str]):
    """``page``, its console errors and uncaught script errors added to ``problems``."""
    page.on("console", lambda message: problems.append(
        f"console: {message.text} ({message.location.get('url')})")
        if message.type == "error" and not message.location.get("url", "").endswith(
            "/favicon.ico") else None)      # the browser asks for an icon the page has not
    page.on("pageerror", lambda error: problems.append(f"script: {error}"))
    return page


@contextlib.contextmanager
def chromium_blocking_cookies(browser: Any, profile: Path, site: str,
                              embedded_in: str) -> Iterator[Any]:
    """Another Chromium like ``browser`` (the ``chromium`` fixture's), with its own profile
    in ``profile``, that keeps no cookie of ``site`` inside a page of ``embedded_in``,
    partitioned ones included, as Safari does with third-party cookies; ``site`` on its own
    (a new tab) keeps its cookies. Chromium's switches that block third-party cookies still
    keep Partitioned ones (CHIPS), so this is the profile's own cookie exception (what a
    user's setting writes in "Preferences") for the pair (site, top-level site).
    Certificate errors are ignored (a test's certificate).

        with chromium_blocking_cookies(chromium, tmp_path / "p", tool, lms) as context:
            page = context.new_page()
    """
    (profile / "Default").mkdir(parents=True, exist_ok=True)
    (profile / "Default" / "Preferences").write_text(json.dumps({"profile": {
        "content_settings": {"exceptions": {"cookies": {
            f"{site},{embedded_in}": {"setting": 2}}}}}}))      # 2: block
    context = browser.browser_type.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
        ignore_https_errors=True, viewport={"width": 1000, "height": 800})
    context.set_default_timeout(60_000)
    try:
        yield context
    finally:
        context.close()


def watch_until_graded(page) -> tuple[list[str], list[str]]:
    """What the live part of a submission page showed until its report came: each status and
    each rubric item line, in order of first appearance."""
    from playwright.sync_api import Error as PlaywrightError
    statuses: list[str] = []
    items: list[str] = []
    deadline = time.monotonic() + GRADING_MS / 1000
    while time.monotonic() < deadline:
        try:
            if page.locator("section.report").count():
                return statuses, items
            status = page.locator("#status").inner_text(timeout=2_000)
            where = page.locator("#where").inner_text(timeout=2_000)
            lines = page.locator("#items li").all_inner_texts()
        except PlaywrightError:     # the page reloads itself when the report is ready
            continue
        seen = f"{status}{where}"
        if not statuses or statuses[-1] != seen:
            statuses.append(seen)
        items += [line for line in lines if line not in items]
        page.wait_for_timeout(250)
    raise AssertionError(f"no report after {GRADING_MS / 1000:g} s; seen: {statuses}")


def hand_in_and_wait(frame: Any) -> None:
    """Hand in the quick correct file from ``frame`` (a page or a frame) and wait for its
    report."""
    from service_helpers import FAST
    frame.locator("input[name=file]").set_input_files(str(FAST))
    frame.locator("button:has-text('Hand in')").click()
    frame.wait_for_url(re.compile(r"/submissions/\d+$"))
    watch_until_graded(frame)



def framed(page: Any, heading: str, problems: list[str], *extra: Any,
           name: str = "tool") -> Any:
    """The frame ``name`` of ``page`` once it shows an h1 with ``heading``. The frame is
    looked up when it shows it, not before: a frame that goes to another site (the tool's
    login, the LMS's authorization, the tool's launch) may be replaced by a new one in
    another process, and a frame object taken earlier then waits forever. When it does not
    show it in time: fail with what it shows instead, the browser's problems and ``extra``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.frame_locator(f"iframe[name={name}]").locator(
            f"h1:has-text('{heading}')").first.wait_for()
    except PlaywrightTimeout:
        frame = page.frame(name=name)
        try:
            shown = f"{frame.url}\n{frame.inner_text('body', timeout=5000)[:1500]}"
        except Exception as problem:           # no such frame, or it went away meanwhile
            shown = f"(cannot be read: {problem})"
        raise AssertionError(f"no heading {heading!r}; the frame shows {shown}\n"
                             f"problems: {problems}\n" + "\n".join(map(str, extra))) from None
    frame = page.frame(name=name)
    assert frame is not None
    return frame

"""Headless Chromium for the page's browser tests: Debian's ``chromium`` driven by
Playwright (never ``playwright install``, which downloads a browser of its own), a page per
person that records console and script errors, and the live part of a submission page
watched until its report comes. The ``chromium`` and ``shots`` fixtures are in conftest.py.

    page = new_page(browser, problems)      # its own cookies: one person
    statuses, items = watch_until_graded(page)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from typing import Any, Iterator

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
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


def new_page(browser, problems: list[str]):
    """A page in its own context (its own cookies: one person), recording what goes wrong:
    console errors (a CSP violation is one) and uncaught script errors."""
    context = browser.new_context(viewport={"width": 1000, "height": 800}, accept_downloads=True)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.on("console", lambda message: problems.append(
        f"console: {message.text} ({message.location.get('url')})")
        if message.type == "error" and not message.location.get("url", "").endswith(
            "/favicon.ico") else None)      # the browser asks for an icon the page has not
    page.on("pageerror", lambda error: problems.append(f"script: {error}"))
    return page


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

"""Refresh the documentation's screenshots from the browser tests.

    python3 docs/screenshots.py

runs ``tests/service/test_browser.py`` (headless Chromium through Playwright, against the real
server) with ``$TTT_SCREENSHOTS`` set to a temporary folder, then copies the pictures the
documentation shows into ``docs/images/`` under stable names. The pictures follow the page:
nothing is drawn by hand. It fails, saying which, when the browser test skipped or a picture
is missing (the test needs ``chromium``: ``apt-get install chromium``, as ``.ci/run`` does).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
# The browser test's file name -> the documentation's.
PICTURES = {
    "4-student-failure.png": "student-report.png",
    "5-student-history.png": "student-history.png",
    "6-instructor-class.png": "instructor-class.png",
    "1-instructor-roster.png": "instructor-roster.png",
    "8-student-adjusted.png": "student-adjusted.png",
}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ttt-shots-") as folder:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-rs", "tests/service/test_browser.py"],
            cwd=ROOT, env={**os.environ, "TTT_SCREENSHOTS": folder})
        missing = [name for name in PICTURES if not (Path(folder) / name).is_file()]
        if run.returncode != 0 or missing:
            print(f"not updated: the browser test exited {run.returncode}; "
                  f"missing: {', '.join(missing) or 'none'}", file=sys.stderr)
            return 1
        IMAGES.mkdir(parents=True, exist_ok=True)
        for source, target in PICTURES.items():
            shutil.copyfile(Path(folder) / source, IMAGES / target)
            print(f"docs/images/{target} <- {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

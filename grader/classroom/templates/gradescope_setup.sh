#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
# It installs the grader into its own virtual environment, /opt/ttt-grader.
#
# AUTOGRADER_SKIP_INSTALL=1 skips the installation (to try run_autograder on a
# machine where the project is installed already).
set -euo pipefail
SOURCE="${AUTOGRADER_SOURCE:-$(cd "$(dirname "$0")" && pwd)}"
VENV="${AUTOGRADER_VENV:-/opt/ttt-grader}"

if [ -f "$SOURCE/grader_config.cfg" ]; then
    # The instructor's configuration (the rubric's weights): root only.
    chmod 600 "$SOURCE/grader_config.cfg"
fi
if [ -n "${AUTOGRADER_SKIP_INSTALL:-}" ]; then
    echo "setup.sh: AUTOGRADER_SKIP_INSTALL is set, nothing installed"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q python3 python3-venv python3-pip
# The sandbox's strongest layer; the grader works without it when it is missing.
apt-get install -y -q bubblewrap || echo "setup.sh: bubblewrap not installed (optional)"

python3 - <<'PY'
import sys
if sys.version_info < (3, 10):
    sys.exit(f"setup.sh: the grader needs Python 3.10 or newer, this image has "
             f"{sys.version.split()[0]}: choose Ubuntu 22.04 or newer in the autograder settings")
PY
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "$SOURCE"
"$VENV/bin/python" -m grader --help >/dev/null
echo "setup.sh: the grader is installed in $VENV"

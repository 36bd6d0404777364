#!/bin/sh
# Back up a course's folder while grader serve runs. The new folder is itself a course
# folder: to restore, start a server on it (or copy it back while the server is stopped).
#
#   sudo -u ttt-grader sh backup-course.sh /var/lib/ttt-grader/course \
#       /var/backups/ttt-grader/$(date +%Y-%m-%d-%H%M)
#
# It copies course.sqlite3 with SQLite's online backup (a consistent copy, taken while the
# server reads and writes; a plain cp of a database in WAL mode can miss its last
# changes), secret.key (it signs every link: without it no link signs in), configs/
# (every configuration the course used) and lti-tool-key.json (the key an LMS knows the
# tool by, when the course is in an LMS). It leaves out work/ (files being graded: after a
# restore the queue grades them again from the database) and similarity/ (made again on
# demand). PYTHON names the interpreter (default: python3).
set -eu
usage="usage: backup-course.sh COURSE_FOLDER NEW_BACKUP_FOLDER"
course=${1:?$usage}
backup=${2:?$usage}
if [ ! -f "$course/course.sqlite3" ] || [ ! -f "$course/secret.key" ]; then
    echo "$course is not a course folder (no course.sqlite3 and secret.key)" >&2
    exit 2
fi
if [ -e "$backup" ]; then
    echo "$backup exists: give a new folder" >&2
    exit 2
fi
umask 077
mkdir -p "$backup"
"${PYTHON:-python3}" - "$course/course.sqlite3" "$backup/course.sqlite3" <<'PY'
import sqlite3
import sys

source = sqlite3.connect(sys.argv[1], timeout=60)
copy = sqlite3.connect(sys.argv[2])
with copy:
    source.backup(copy)          # the same as: sqlite3 course.sqlite3 ".backup copy.sqlite3"
check = copy.execute("PRAGMA integrity_check").fetchone()[0]
copy.close()
source.close()
if check != "ok":
    sys.exit(f"the copy is damaged: {check}")
PY
cp -p "$course/secret.key" "$backup/secret.key"
if [ -f "$course/lti-tool-key.json" ]; then      # the LMS knows the tool by this key
    cp -p "$course/lti-tool-key.json" "$backup/lti-tool-key.json"
fi
if [ -d "$course/configs" ]; then
    cp -Rp "$course/configs" "$backup/configs"
fi
echo "backed up $course to $backup"

"""Unpacking a class's zip safely: no path leaves the folder, no link, capped sizes.

>>> _safe_target(Path("/out"), zipfile.ZipInfo("../evil.py"))
'a path that leaves the folder'
"""

from __future__ import annotations

import re
import shutil
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

MAX_ZIP_MEMBER_BYTES = 50 * 1024 * 1024   # one file in the class zip
MAX_ZIP_TOTAL_BYTES = 2 * 1024 ** 3       # everything in the class zip, unpacked
MAX_ZIP_MEMBERS = 100_000


class SubmissionsError(Exception):
    """SUBMISSIONS cannot be read as a class: missing, not a folder or a zip, a bad zip."""


class ArchiveError(SubmissionsError):
    """The class zip is unsafe or too large to unpack."""


def extract_zip(archive: Path, destination: Path) -> list[str]:
    """Unpack ``archive`` into ``destination`` (emptied first), safely; return warnings.

    Entries with absolute paths, ``..`` or links are skipped with a warning,
    files over MAX_ZIP_MEMBER_BYTES too; more than MAX_ZIP_TOTAL_BYTES unpacked
    or MAX_ZIP_MEMBERS entries in all raise :class:`ArchiveError`. Sizes are
    counted as the bytes come out, not as the zip claims.
    """
    destination = Path(destination)
    if destination.exists():
        shutil.rmtree(destination)
    destination.mkdir(parents=True)
    warnings: list[str] = []
    total = 0
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise ArchiveError(f"{archive}: more than {MAX_ZIP_MEMBERS} entries")
            for member in members:
                member.filename = member_name(member)  # José, not Jos├⌐
                target = _safe_target(destination, member)
                if isinstance(target, str):
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: {target}")
                    continue
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    written = _copy_capped(bundle, member, target,
                                           min(MAX_ZIP_MEMBER_BYTES, MAX_ZIP_TOTAL_BYTES - total))
                except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError,
                        zlib.error) as problem:    # encrypted, corrupt, unknown compression
                    target.unlink(missing_ok=True)
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: {problem}")
                    continue
                if written is None:
                    if total + MAX_ZIP_MEMBER_BYTES > MAX_ZIP_TOTAL_BYTES:
                        raise ArchiveError(f"{archive}: more than {MAX_ZIP_TOTAL_BYTES} bytes "
                                           "unpacked")
                    warnings.append(f"{archive.name}: skipped {member.filename!r}: larger "
                                    f"than {MAX_ZIP_MEMBER_BYTES} bytes")
                    continue
                total += written
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
            OSError, EOFError) as problem:
        raise SubmissionsError(f"{archive}: cannot unpack: {problem}") from None
    return warnings


_UNICODE_PATH = 0x7075   # Info-ZIP's extra field holding the name in UTF-8


def member_name(member: zipfile.ZipInfo) -> str:
    """An entry's name as its maker meant it, as zip readers work it out.

    With the UTF-8 flag, ``zipfile`` already read it right. Without it (Info-ZIP on Linux,
    Windows' own zips, macOS): Info-ZIP's Unicode Path field if there is one, else the raw
    bytes as UTF-8 when they are valid UTF-8, else code page 437 (the zip standard's).

    >>> info = zipfile.ZipInfo("José Núñez_12_assignsubmission_file_/x.py".encode().decode("cp437"))
    >>> member_name(info)
    'José Núñez_12_assignsubmission_file_/x.py'
    """
    if member.flag_bits & 0x800:
        return member.filename
    extra = member.extra
    while len(extra) >= 4:
        kind, size = int.from_bytes(extra[:2], "little"), int.from_bytes(extra[2:4], "little")
        body, extra = extra[4:4 + size], extra[4 + size:]
        if kind == _UNICODE_PATH and body[:1] == b"\x01" and len(body) > 5:
            try:
                return body[5:].decode("utf-8")
            except UnicodeDecodeError:
                break
    try:
        raw = member.filename.encode("cp437")
    except UnicodeEncodeError:
        return member.filename
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return member.filename


def _safe_target(destination: Path, member: zipfile.ZipInfo) -> Path | str:
    name = member.filename.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if any(part == ".." for part in parts):
        return "a path that leaves the folder"
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a link"
    parts = tuple(part for part in parts if part not in ("", "."))
    if not parts:
        return "an empty name"
    return destination.joinpath(*parts)


def _copy_capped(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path,
                 cap: int) -> int | None:
    written = 0
    with bundle.open(member) as reader, open(target, "wb") as writer:
        while chunk := reader.read(1024 * 1024):
            written += len(chunk)
            if written > cap:
                break
            writer.write(chunk)
    if written > cap:
        target.unlink()
        return None
    return written

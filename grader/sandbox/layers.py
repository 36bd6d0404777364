"""The layers around the worker: what bubblewrap binds, what Landlock allows, and the words
that say which layers were in force (``Sandbox.isolation``).

The files the worker needs (the Python installation, ``provided``, the code that runs
inside) are found once per process (:func:`layout`); bubblewrap is
probed once per process (:func:`bwrap_available`).
"""

from __future__ import annotations

import errno
import functools
import os
import py_compile
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib.util import MAGIC_NUMBER, cache_from_source
from pathlib import Path

import provided
from grader.sandbox.errors import SandboxError
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import text_of
from grader.sandbox.uids import SANDBOX_UIDS

INSIDE = Path(__file__).resolve().parent / "inside"    # the code that runs in the sandbox
BOX = "/box"                    # the private directory, as seen inside bubblewrap


@dataclass(frozen=True)
class Layout:
    python: str                    # the real interpreter, not a venv or pyenv shim
    prefixes: tuple[str, ...]      # the Python installation, bound read-only
    sys_path: tuple[str, ...]      # what the worker puts on sys.path: provided's parent
    binds: tuple[str, ...]         # files and folders of the project the worker needs


@functools.lru_cache(maxsize=None)
def layout() -> Layout:
    python = os.path.realpath(sys.executable)
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    if not any(python.startswith(p + os.sep) for p in prefixes):
        prefixes.add(os.path.dirname(python))
    package = Path(provided.__file__).resolve().parent
    for source in [*INSIDE.glob("*.py"), *package.glob("*.py")]:
        # The worker and provided are imported at every start: keep them compiled.
        compiled = cache_from_source(str(source))
        if not _fresh(source, compiled):
            try:
                py_compile.compile(str(source), compiled, doraise=True)
            except (OSError, py_compile.PyCompileError):
                continue
    return Layout(python, tuple(sorted(prefixes)), (str(package.parent),),
                  (str(package), str(INSIDE)))


def _fresh(source: Path, compiled: str) -> bool:
    """Whether the timestamp-checked .pyc of ``source`` is up to date."""
    try:
        info = source.stat()
        with open(compiled, "rb") as file:
            header = file.read(16)
    except OSError:
        return False
    return (header[:4] == MAGIC_NUMBER and header[4:8] == bytes(4)
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF)


def _within(path: str, folders: list[str] | tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_CONFIG = ("/etc/ld.so.cache", "/etc/localtime")
_SYSTEM_FILES = (*_SYSTEM_CONFIG, "/dev/urandom", "/dev/zero")


def bwrap_command(paths: Layout, box: Path, limits: Limits, env: dict[str, str],
                   info_fd: int) -> list[str]:
    """bubblewrap's arguments: only what the worker needs, read-only, in new namespaces."""
    root = os.geteuid() == 0
    command = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session"]
    if root:  # no user namespace: the worker drops to its uid itself, a real uid outside too
        command += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                    "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                    "--cap-add", "CAP_SETGID"]
    else:
        command += ["--unshare-all"]
    bound: list[str] = []
    for folder in _SYSTEM:
        if os.path.islink(folder):
            command += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            command += ["--ro-bind", folder, folder]
            bound.append(folder)
    for file in _SYSTEM_CONFIG:
        command += ["--ro-bind-try", file, file]
    # The private /tmp first: a project or a Python that lives under /tmp is bound on top.
    command += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777",
                "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    extra = [p for p in (*paths.prefixes, *paths.binds) if not _within(p, bound)]
    parents = sorted({str(parent) for p in extra for parent in Path(p).parents
                      if str(parent) not in ("/", "/tmp") and not _within(str(parent), bound)},
                     key=lambda p: p.count("/"))
    for parent in parents:  # bubblewrap would make them 0700, closed to the sandbox's uid
        command += ["--perms", "0755", "--dir", parent]
    for path in extra:
        command += ["--ro-bind", path, path]
    command += ["--ro-bind", str(box), BOX, "--chdir", BOX, "--clearenv"]
    for key, value in env.items():
        command += ["--setenv", key, value]
    return command + ["--info-fd", str(info_fd), "--"]


@functools.lru_cache(maxsize=None)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or None if it can (tried once per process)."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed"
    paths = layout()
    box = Path(tempfile.mkdtemp(prefix="ttt-sandbox-probe-"))
    try:
        box.chmod(0o755)
        read, write = os.pipe()
        uid = SANDBOX_UIDS[0]
        drop = (f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
                if os.geteuid() == 0 else "")
        command = bwrap_command(paths, box, Limits(), {"PATH": "/usr/bin:/bin"}, write)
        command += [paths.python, "-I", "-S", "-B", "-c", drop + "import json"]
        try:
            result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                    pass_fds=[write], timeout=20, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap failed to run: {exc}"
        finally:
            os.close(read)
            os.close(write)
        if result.returncode != 0:
            return (f"bwrap failed (status {result.returncode}): "
                    + result.stderr.decode(errors="replace").strip())
        return None
    finally:
        shutil.rmtree(box, ignore_errors=True)


def bwrap_available() -> bool:
    """Whether bubblewrap is installed and works here; probed once per process.

    >>> isinstance(bwrap_available(), bool)
    True
    """
    return bwrap_problem() is None


def want_bwrap(use_bwrap: bool | None) -> bool:
    if use_bwrap is None:
        if os.environ.get("TTT_GRADER_NO_BWRAP", "") not in ("", "0"):
            return False
        return bwrap_available()
    if use_bwrap and not bwrap_available():
        raise SandboxError(f"bubblewrap was asked for but cannot be used: {bwrap_problem()}")
    return use_bwrap


@functools.lru_cache(maxsize=None)
def landlock_problem() -> str | None:
    """Why Landlock cannot confine a worker here, or None if it can: asked of the kernel
    once per process, before any worker starts (a worker may do what the grader may).

    >>> landlock_problem() is None or isinstance(landlock_problem(), str)
    True
    """
    if sys.platform != "linux":
        return "Landlock is Linux's"
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
        syscall.restype = ctypes.c_long
        abi = syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # its ABI version
        error = ctypes.get_errno()
    except (OSError, AttributeError) as exc:
        return f"Landlock could not be asked for ({exc})"
    if abi >= 1:
        return None
    if error == errno.ENOSYS:
        return "this kernel has none: Linux 5.13 or later has it"
    if error == errno.EOPNOTSUPP:
        return "it is turned off in this kernel: see its lsm= boot option"
    return f"Landlock is not available ({os.strerror(error)})"


@dataclass(frozen=True)
class Rights:
    """What a fallback worker run as root keeps: the capability to read past file
    permissions (only where Landlock confines it), or none at all; and whether the worker's
    own code must be copied into the box for its uid to read (no Landlock)."""

    read_cap: bool = False
    stage: bool = False


def fallback_rights(box: Path, private: tuple[Path, ...]) -> Rights:
    """The rights of a worker run as root without bubblewrap, in a uid of its own.

    With Landlock, the uid keeps CAP_DAC_READ_SEARCH where it could not read Python
    otherwise, and Landlock limits what it reads. Without Landlock it keeps no capability:
    file permissions are then all that keeps it from the grader's files, so every folder of
    ``private`` must be closed to other users, and Python and ``provided`` open to them;
    otherwise SandboxError says which layer is missing and what to do.
    """
    problem = landlock_problem()
    if problem is None:
        return Rights(read_cap=not others_can_read(box))
    missing = (f"the sandbox has neither bubblewrap ({bwrap_problem() or 'turned off'}) "
               f"nor Landlock ({problem})")
    fixes = ("install bubblewrap (recommended), or run the grader on a Linux kernel with "
             "Landlock (5.13 or later, turned on)")
    paths = layout()
    for needed in (paths.python, *paths.prefixes, paths.binds[0], str(box)):
        if not _reachable(Path(needed), readable=True):
            raise SandboxError(
                f"{missing}: the student's code would run with no capability, and its uid "
                f"cannot read {needed}, which the worker needs (a folder above it is closed "
                f"to other users); {fixes}, or install Python where every user can read it")
    for path in private:
        if _reachable(Path(path), readable=not Path(path).is_dir()):
            raise SandboxError(
                f"{missing}: only file permissions would keep the student's code out of "
                f"{path}, and they let every user reach it; {fixes}, or close it to other "
                f"users (chmod o-rwx {path})")
    return Rights(stage=True)


def stage_inside(box: Path) -> Path:
    """Copy the worker's code (and its compiled form) into ``box``: without Landlock the
    sandbox's uid reads it there, and the grader's own folder can stay closed to it."""
    layout()   # compiled and fresh
    target = box / ".inside"
    (target / "__pycache__").mkdir(parents=True)
    for source in INSIDE.glob("*.py"):
        for path, copy in ((source, target / source.name),
                           (Path(cache_from_source(str(source))),
                            Path(cache_from_source(str(target / source.name))))):
            if path.exists():
                shutil.copy2(path, copy)
                copy.chmod(0o644)
    for folder in (target, target / "__pycache__"):
        folder.chmod(0o755)
    return target


def unconfined(hello: dict, bwrap: bool, rights: Rights) -> str:
    """Why a worker that has just said hello must not run student code, or "": outside
    bubblewrap and without Landlock, it must hold no capability at all (it kept one for
    Landlock to confine, or could not become its uid).

    >>> unconfined({"landlock": 0, "caps": {"CapEff": 0, "CapPrm": 0}}, False, Rights())
    ''
    >>> unconfined({"landlock": 0, "caps": {"CapEff": 4, "CapPrm": 4}}, False, Rights())[:36]
    'the worker holds capabilities (CapEf'
    """
    if bwrap or hello.get("landlock"):
        return ""
    if rights.read_cap:
        return ("Landlock could not be applied in the worker ("
                f"{text_of(hello.get('landlock_error')) or 'no reason given'}), and its uid "
                "cannot read Python without the capability Landlock would confine: install "
                "bubblewrap")
    caps = hello.get("caps")
    held = [name for name in ("CapEff", "CapPrm", "CapInh", "CapAmb")
            if type(caps) is dict and caps.get(name)]
    if held or type(caps) is not dict:
        why = text_of(hello.get("uid_error"))
        return (f"the worker holds capabilities ({', '.join(held) or 'unknown'}) with neither "
                "bubblewrap nor Landlock to confine it" + (f" (it stayed root: {why})"
                                                           if why else "")
                + ": install bubblewrap")
    return ""


def _reachable(path: Path, readable: bool) -> bool:
    """Whether a uid that is nobody's (no owner, no group of anything) can reach ``path``:
    search every folder above it and the path itself (a folder), or also read it."""
    try:
        for folder in [*reversed(path.parents), *([] if readable else [path])]:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        if not readable:
            return True
        mode = path.stat().st_mode
        searchable = not stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH)
        return bool(mode & stat.S_IROTH) and searchable
    except OSError:
        return False


def others_can_read(box: Path) -> bool:
    """Whether any uid can reach the interpreter, the stdlib, provided, the worker and the
    box, so the fallback (no bubblewrap) can drop to the sandbox's uid and no more."""
    paths = layout()
    return _open_to_others.__wrapped__(box) and all(
        _open_to_others(Path(p)) for p in (paths.python, *paths.prefixes, *paths.binds))


@functools.lru_cache(maxsize=None)
def _open_to_others(path: Path) -> bool:
    try:
        for folder in path.parents:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        return bool(path.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


def landlock_rules(paths: Layout, box: str, scratch: str) -> dict[str, list[str]]:
    """What the worker may read and write under Landlock, as paths it sees."""
    read = [*_SYSTEM, *_SYSTEM_FILES, *paths.prefixes, *paths.binds, box]
    return {"read": read, "write": [scratch, "/dev/null"]}


def describe_layers(hello: dict, bwrap: bool, limits: Limits, family: str = "",
                    scratch: bool = False) -> tuple[str, ...]:
    """The isolation actually in force, from what the worker reported about itself;
    ``family``: what holds the processes it starts (a cgroup, a subreaper); ``scratch``:
    its scratch folder is watched (no bubblewrap)."""
    uid = hello.get("uid")
    own_uid = type(uid) is int and uid in SANDBOX_UIDS
    stragglers = "" if bwrap else (" (stragglers found by their uid)" if own_uid
                                   else " (stragglers found by their environment)")
    layers = ["separate process", "own session and process group" + stragglers,
              "scrubbed environment",
              "python -I -S", "private working directory"]
    applied = hello.get("rlimits")
    if type(applied) is list and applied:
        names = {"AS": f"memory {limits.memory_bytes >> 20} MiB",
                 "FSIZE": f"files {limits.file_bytes >> 20} MiB",
                 "NOFILE": f"{limits.open_files} open files",
                 "NPROC": f"{limits.processes} processes", "CORE": "no core dumps"}
        layers.append("rlimits (" + ", ".join(names.get(str(a), str(a)) for a in applied)
                      + ")")
    if hello.get("nnp") is True:
        layers.append("no new privileges")
    caps = hello.get("caps")
    if type(caps) is dict and caps and not any(caps.get(name) for name in
                                               ("CapInh", "CapPrm", "CapEff", "CapAmb")):
        layers.append("no capabilities" + (" (all five sets empty)"
                                           if caps.get("CapBnd") == 0 else ""))
    if own_uid:
        layers.append(f"uid {uid} (its own" + (", reads past file permissions: "
                      "CAP_DAC_READ_SEARCH" if hello.get("read_cap") is True else "") + ")")
    elif uid == 0:
        layers.append("uid 0 (root: " + text_of(hello.get("uid_error")) + ")"
                      if hello.get("uid_error") else "uid 0 (root)")
    else:
        layers.append(f"uid {uid} (the grader's own)")
    abi = hello.get("landlock")
    if type(abi) is int and abi > 0:
        limited = ["reads only Python, provided and its box", "writes only its scratch "
                   "directory"] + (["no TCP"] if abi >= 4 else []) \
            + (["signals only within the sandbox"] if abi >= 6 else [])
        layers.append(f"landlock v{abi} (" + ", ".join(limited) + ")")
    elif not bwrap:
        layers.append("no landlock: file permissions alone limit what it reads and writes")
    if family:
        layers.append(f"every process it starts ended when its call ends, its CPU time "
                      f"counted ({family})")
    if scratch:
        layers.append(f"scratch folder watched ({limits.tmp_bytes >> 20} MiB, "
                      f"{limits.tmp_entries:,} files)")
    if bwrap:
        layers.append("bubblewrap: read-only system, no network, private /tmp")
        layers.append("pid namespace")
    return tuple(layers)

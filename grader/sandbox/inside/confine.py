"""Inside the sandbox, before any student code: hide the answer channel and shed rights.

Each step is taken where the system has it, and reported in the worker's hello: the
channel's descriptors move above 1024 (an old daemon idiom closes 3 to 1024); no new
privileges; the sandbox's own uid; Landlock (what may be read and written, no TCP, no
signal outside the sandbox); rlimits. Standard library only.
"""

import os
import resource


def fd_range():
    """Where the channel's descriptors hide: above 1024 when the hard limit allows, so that
    a student's ``os.closerange(3, 1024)`` (an old daemon idiom) leaves them alone."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    high = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if high > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (high, hard))
        except (ValueError, OSError):
            high = soft
    return high // 2, high


def hide_fd(fd, low, high):
    """Move a pipe end to a random free descriptor in [low, high), closed on exec."""
    while True:
        target = low + int.from_bytes(os.urandom(2), "little") % (high - low)
        try:
            os.fstat(target)
        except OSError:
            break
    os.dup2(fd, target, inheritable=False)
    os.close(fd)
    return target


def close_all_but(keep, high):
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, high)


# -- privileges (Linux; each step is skipped where the system lacks it) ----------------------

PR_SET_KEEPCAPS = 8
PR_SET_NO_NEW_PRIVS = 38
CAP_DAC_READ_SEARCH = 2
_CAP_VERSION_3 = 0x20080522


def _libc():
    import ctypes
    return ctypes, ctypes.CDLL(None, use_errno=True)


def no_new_privileges():
    """No setuid binary or file capability can give this process (or its children) more
    rights than it has; Landlock requires it. Returns whether it is in force."""
    try:
        ctypes, libc = _libc()
        return libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become(uid, gid, read_cap):
    """setgroups/setgid/setuid to the sandbox's uid; with ``read_cap``, keep only
    CAP_DAC_READ_SEARCH. Returns whether that capability was kept."""
    os.setgroups([])
    os.setgid(gid)
    if not read_cap:
        os.setuid(uid)
        return False
    ctypes, libc = _libc()
    if libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_KEEPCAPS) failed")
    os.setuid(uid)  # the permitted set survives; the effective set is cleared
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    bit = 1 << CAP_DAC_READ_SEARCH
    data = (ctypes.c_uint32 * 6)(bit, bit, 0, 0, 0, 0)  # effective, permitted, inheritable
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    return True


# Landlock (Linux 5.13+): access rights, as in <linux/landlock.h>.
_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446   # the same on every architecture
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_REMOVE_DIR, _FS_REMOVE_FILE, _FS_MAKE_DIR, _FS_MAKE_REG = 1 << 4, 1 << 5, 1 << 7, 1 << 8
_FS_MAKE_SOCK, _FS_MAKE_FIFO, _FS_MAKE_SYM = 1 << 9, 1 << 10, 1 << 12
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_FS_WRITE = (_FS_WRITE_FILE | _FS_REMOVE_DIR | _FS_REMOVE_FILE | _FS_MAKE_DIR | _FS_MAKE_REG
             | _FS_MAKE_SOCK | _FS_MAKE_FIFO | _FS_MAKE_SYM | _FS_REFER | _FS_TRUNCATE)
_FS_ON_FILES = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV


def landlock(rules):
    """Allow reading only beneath ``rules["read"]`` and writing only beneath
    ``rules["write"]``; with ABI 4+ no TCP bind or connect, with ABI 6+ no signal to a
    process outside the sandbox. Returns the ABI version in force, or 0."""
    if not rules:
        return 0
    try:
        ctypes, libc = _libc()
        syscall = libc.syscall
        syscall.restype = ctypes.c_long
        abi = syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    if abi < 1:
        return 0
    handled = (_FS_REFER << 1) - 1 if abi >= 2 else _FS_REFER - 1
    handled |= (_FS_TRUNCATE if abi >= 3 else 0) | (_FS_IOCTL_DEV if abi >= 5 else 0)
    net = 0b11 if abi >= 4 else 0       # bind and connect TCP: no rule allows either
    scoped = 0b11 if abi >= 6 else 0    # abstract unix sockets and signals
    attr = (ctypes.c_uint64 * 3)(handled, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = syscall(_LL_CREATE, attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    try:
        for paths, rights in ((rules.get("read", ()), _FS_READ),
                              (rules.get("write", ()), _FS_READ | _FS_WRITE)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # not on this machine
                try:
                    allowed = rights & handled
                    if not os.path.isdir(path):
                        allowed &= _FS_ON_FILES
                    rule = PathBeneath(allowed, fd)
                    if syscall(_LL_ADD_RULE, ruleset, 1, ctypes.byref(rule),
                               ctypes.c_uint32(0)) != 0:
                        raise OSError(ctypes.get_errno(), "landlock_add_rule failed: " + path)
                finally:
                    os.close(fd)
        if syscall(_LL_RESTRICT, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi


def set_rlimits(wanted):
    applied = []
    for name, value in wanted.items():
        which = getattr(resource, "RLIMIT_" + name, None)
        if which is None:
            continue
        try:
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
            applied.append(name)
        except (ValueError, OSError):
            pass
    return applied

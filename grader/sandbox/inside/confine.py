"""Inside the sandbox, before any student code: hide the answer channel and shed rights.

Each step is taken where the system has it, and reported in the worker's hello: the
channel's descriptors move above 1024 (an old daemon idiom closes 3 to 1024); outside
bubblewrap, a supervisor (:func:`supervise`) that every process the worker starts stays
below; no new privileges; the sandbox's own uid with no capability left in any set (one,
reading past file permissions, only where Landlock then confines it); Landlock (what may be
read and written, no TCP, no signal outside the sandbox); rlimits. Standard library only.
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
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
CAP_DAC_READ_SEARCH = 2
_CAP_VERSION_3 = 0x20080522
_CAP_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


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


def keep_niceness():
    """Give this process's session the process's own nice, where it leads the session.

    Linux's autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``) shares the
    CPU between sessions first, and a new session starts at nice 0: a grade lowered to nice
    10 whose worker starts a session of its own would otherwise take as much CPU as the web
    process again. Lowering is allowed to anyone; raising is never asked for here."""
    try:
        if os.getsid(0) != os.getpid():    # another's session: not ours to change
            return
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        if nice > 0:
            with open("/proc/self/autogroup", "w") as autogroup:
                autogroup.write(str(nice))
    except (OSError, AttributeError):      # no autogroup here: nice alone is enough
        pass


def supervise():
    """Split in two before anything else: the parent stays behind as the worker's
    supervisor, the child returns and becomes the worker (in a session and process group of
    its own, so a kill of its group never reaches the supervisor).

    The supervisor is a child subreaper: a process the student's code starts stays below
    it, whatever it does (setsid, a double fork), so the grader finds every one by walking
    down from it, counts the CPU of those it reaped (its own children's time) and ends them.
    It keeps the grader's uid (root: the sandbox's uid can neither signal nor trace it),
    holds no descriptor of the worker's, reaps, and exits as the worker does (a signal N as
    status 128 + N). Where the kernel has no subreaper (before 3.4), there is no split."""
    ctypes, libc = _libc()
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return False
    worker = os.fork()
    if worker == 0:   # a subreaper's children are not subreapers
        os.setsid()
        keep_niceness()
        return True
    os.closerange(3, 1 << 16)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == worker:
            code = os.waitstatus_to_exitcode(status)
            os._exit(code if code >= 0 else 128 - code)


def become(uid, gid, read_cap):
    """setgroups/setgid/setuid to the sandbox's uid, with no capability in any set (the
    bounding and ambient sets emptied while root, then the effective, permitted and
    inheritable ones); with ``read_cap``, keep CAP_DAC_READ_SEARCH alone, for Landlock to
    confine. Returns whether that capability was kept."""
    ctypes, libc = _libc()
    _empty_bounding_set(libc)  # no exec can bring a capability back (needs CAP_SETPCAP)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    os.setgroups([])
    os.setgid(gid)
    if read_cap and libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_KEEPCAPS) failed")
    os.setuid(uid)  # with KEEPCAPS the permitted set survives; the effective set is cleared
    if read_cap:
        libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    _capset(ctypes, libc, (1 << CAP_DAC_READ_SEARCH) if read_cap else 0)
    return read_cap


def drop_read_cap():
    """Give up the one capability kept for Landlock to confine (when Landlock could not be
    applied after all): file permissions hold again. Returns False (none is kept)."""
    ctypes, libc = _libc()
    _capset(ctypes, libc, 0)
    return False


def _capset(ctypes, libc, bits):
    """The effective and permitted sets become ``bits``; the inheritable set empty."""
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)(bits, bits, 0, 0, 0, 0)  # effective, permitted, inheritable
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _empty_bounding_set(libc):
    try:
        with open("/proc/sys/kernel/cap_last_cap", "rb") as file:
            last = int(file.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)   # EPERM without CAP_SETPCAP: left as is


def capabilities():
    """The five capability sets of this process now (/proc/self/status), by name: what the
    hello reports, so the layers named are the ones in force, not the ones intended."""
    found = {}
    try:
        with open("/proc/self/status", "rb") as file:
            for line in file.read().decode("ascii", "replace").splitlines():
                name, _, value = line.partition(":")
                if name in _CAP_SETS:
                    found[name] = int(value.strip(), 16)
    except (OSError, ValueError):
        pass
    return found


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

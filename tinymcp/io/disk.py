"""Reading files safely: a config or a prompt file is read only when it is a regular file
(never a FIFO, a device, or a procfs or sysfs file), within a size bound; and a path that
cannot be read says where it was looked for."""

import errno
import os
import stat

from ..errors import ConfigError


def read_regular(path, limit, nofollow=False):
    """The bytes of the regular file ``path``, at most ``limit``; ConfigError otherwise.
    Never a FIFO or a device (opened without blocking, checked, then read), nor a procfs
    or sysfs file (regular, but holding other than their size says: /proc/self/environ
    says 0 bytes). ``nofollow``: a symlink there is refused (a path checked before, that
    somebody may since have replaced with a link leading elsewhere)."""
    fd = None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | (getattr(os, "O_NOFOLLOW", 0) if nofollow else 0))
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError([(path, "cannot read: not a regular file")])
        if st.st_size > limit:
            raise ConfigError([(path, "cannot read: %d bytes, over the %d-byte limit" % (st.st_size, limit))])
        # (asked for one byte more than its size, read at least once: a file that holds more says so, one
        # /proc says is empty too; what a read brings short is read on, never a second read to end a file)
        data = b""
        while len(data) < st.st_size + (not data) and (chunk := os.read(fd, st.st_size + 1 - len(data))):
            data += chunk
        if len(data) != st.st_size:
            # (a file written meanwhile is read again once it has stopped changing)
            raise ConfigError([(path, "cannot read: not a regular file (it holds other than the %d "
                                      "bytes its size says, as /proc and /sys files do)" % st.st_size)])
        return data
    except OSError as exc:
        raise ConfigError([(path, "cannot read: a symlink, not followed (a loop, or put there since it was listed)"
                            if nofollow and exc.errno == errno.ELOOP else "cannot read: %s" % (exc.strerror or exc))])
    finally:
        if fd is not None:
            os.close(fd)


def looked_for(path):
    """Where a relative ``path`` was looked for, and why it may not be what was meant;
    "" for an absolute path that needs no shell."""
    if path.startswith("~") or "$" in path:
        if path.startswith("~"):
            what, full = "~", os.path.expanduser(path)
        else:
            import re
            what, full = re.search(r"\$(\{\w*\}?|\w*)", path).group(), os.path.expandvars(path)
        return "the shell did not expand %s: write the full path%s" % (
            what, ", %s" % full if full != path and os.path.isabs(full) else "")
    if os.path.isabs(path):
        return ""
    try:
        cwd = os.getcwd()
    except OSError:
        return "a relative path, and the current directory is gone: write the full path"
    return "looked for %s, as the current directory is %s: write the full path" % (os.path.join(cwd, path), cwd)


def stat_of(path):
    """What tells a changed file: device, inode (a rename over it), size, mtime, ctime
    (a copy that keeps the size and mtime: ``files.folders.folder_signature``) and mode (a
    file made readable again); None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)

"""The run's report files of the pytest plugin (``--toolscore-junit``,
``--toolscore-json-report``, ``--toolscore-html``): where they go, a check
before the tests run that they can be written, and the atomic write of
what the daemon's run.report returns (docs/pytest.md, "Report files").

A report file is there whole or not at all: it is written to a temporary
file beside it and renamed over it; a path that is not a regular file
(``/dev/stdout``, a FIFO) is written directly.
"""

from __future__ import annotations

import os
import stat
from typing import List, NamedTuple, Optional

# (format of run.report, the option, its dest)
FORMATS = (("junit", "--toolscore-junit", "toolscore_junit"),
           ("json", "--toolscore-json-report", "toolscore_json_report"),
           ("html", "--toolscore-html", "toolscore_html"))


class Report(NamedTuple):
    format: str   # "junit", "json" or "html"
    option: str   # the option that asked for it
    path: str     # absolute


def wanted(getoption, invocation_dir: str) -> List[Report]:  # type: ignore[no-untyped-def]
    """The report files asked for, paths made absolute against the
    invocation directory (as pytest's --junitxml)."""
    out = []
    for fmt, option, dest in FORMATS:
        value = getoption(dest)
        if value:
            path = os.path.expanduser(value)
            out.append(Report(fmt, option, os.path.normpath(os.path.join(invocation_dir, path))))
    return out


def _special(path: str) -> bool:
    """True for an existing path that is not a regular file or a directory
    (a device, a FIFO): written directly, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def problem(path: str) -> Optional[str]:
    """Why the report cannot be written at path, or None. Makes its
    directory (as pytest's --junitxml) and creates and removes a file in it."""
    if _special(path):
        return None if os.access(path, os.W_OK) else "permission denied"
    if os.path.isdir(path):
        return "it is a directory"
    directory = os.path.dirname(path)
    existing = directory
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        return f"{existing} is not a directory"
    try:
        os.makedirs(directory, exist_ok=True)
        probe = _temp_name(path)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return e.strerror or str(e)
    return None


def _temp_name(path: str) -> str:
    d, base = os.path.split(path)
    return os.path.join(d, f".{base}.{os.getpid()}.tmp")


def write(path: str, text: str) -> None:
    """Write text (UTF-8) to path atomically: a temporary file beside it,
    flushed to disk, renamed over it. Raises OSError; nothing is left
    behind on failure."""
    data = text.encode("utf-8")
    if _special(path):
        with open(path, "wb") as f:
            f.write(data)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = _temp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def discard(path: str) -> None:
    """Remove a stale report at path (a regular file only), so a report
    that could not be written is not mistaken for this session's."""
    try:
        if os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)
    except OSError:
        pass

"""What the programmatic API (toolscored.snapshots) and the pytest plugin
share: this process's connection to the daemon, the environment's rules
(CI, TOOLSCORE_RECORD_UPDATE, ...), the default snapshot root, the check's
own argument checks, and a check result turned into the Python answer (an
EvaluationResult, None after a warning, or an AssertionError).
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Mapping, Optional

from . import _package

_package.require_native()

from . import _native  # noqa: E402 - after the check above
from ._errors import (SnapshotError, SnapshotMismatchError, SnapshotMissingInCIError,
                      SnapshotPendingInCIError, SnapshotWarning)
from .result import EvaluationResult

DEFAULT_ROOT = os.path.join(".toolscore", "snapshots")

_FALSE_WORDS = ("", "0", "false", "no")

# One connection per process and socket setting; the C library reconnects
# after fork() and after a broken connection by itself.
_clients: Dict[Optional[str], "_native.Client"] = {}


def env_truthy(value: Optional[str]) -> bool:
    """TOOLSCORE_RECORD_UPDATE's rule: set to anything but empty, 0, false
    or no (case-insensitive, trimmed)."""
    return value is not None and value.strip().lower() not in _FALSE_WORDS


def env_ci() -> bool:
    """CI mode: the CI variable is set and non-empty (any value, even 0)."""
    return bool(os.environ.get("CI"))


def env_update() -> bool:
    """Update mode from the environment (TOOLSCORE_RECORD_UPDATE)."""
    return env_truthy(os.environ.get("TOOLSCORE_RECORD_UPDATE"))


def _columns(value: Optional[str]) -> int:
    """A positive number of columns of at most 65535 from value, else 0."""
    if value is None or not value.isdigit():
        return 0
    n = int(value)
    return n if 0 < n <= 65535 else 0


def report_width() -> int:
    """The drift report's width, measured as tsctl measures it:
    TOOLSCORE_REPORT_WIDTH (what an outer ``tsctl run`` measured), else
    COLUMNS, else the width of the terminal on stdout, else 0 (the
    daemon's default, 100)."""
    n = _columns(os.environ.get("TOOLSCORE_REPORT_WIDTH")) or _columns(os.environ.get("COLUMNS"))
    if n == 0:
        import sys
        try:
            out = sys.__stdout__
            if out is not None and out.isatty():
                n = os.get_terminal_size(out.fileno()).columns
        except (OSError, ValueError):
            n = 0
    return n if 0 < n <= 65535 else 0


def env_json_diff() -> bool:
    """The drift report ends with the JSON diff unless TOOLSCORE_NO_JSON_DIFF
    is truthy (``tsctl run --no-json-diff`` exports it)."""
    return not env_truthy(os.environ.get("TOOLSCORE_NO_JSON_DIFF"))


def client() -> "_native.Client":
    """This process's connection to toolscored (TOOLSCORE_SOCKET, else the
    default socket; the daemon is started when none answers). Its checks'
    texts name tsctl as this package's user runs it (_package.tsctl_command)."""
    socket = os.environ.get("TOOLSCORE_SOCKET") or None
    c = _clients.get(socket)
    if c is None:
        c = _clients[socket] = _native.Client(socket, tsctl=_package.tsctl_command())
    return c


def answering() -> bool:
    """Whether a daemon answers on this process's socket now (a ping on a
    connection of its own, starting none: a refused or absent socket fails
    at once)."""
    socket = os.environ.get("TOOLSCORE_SOCKET") or None
    try:
        _native.Client(socket, autostart=False, connect_timeout_ms=0).ping()
    except Exception:  # noqa: BLE001 - any failure means no daemon to use
        return False
    return True


def default_root() -> str:
    """The snapshot root used when none is given: $TOOLSCORE_DIR, else the
    nearest ``.toolscore/snapshots`` walking up from the current directory
    to the repository root (the first directory holding ``.git``), else
    ``.toolscore/snapshots`` under the repository root, or under the current
    directory outside a repository (as tsctl finds it)."""
    return os.environ.get("TOOLSCORE_DIR") or _native.default_root()[0]


def _outcome_to_python(res: Dict[str, Any], stacklevel: int) -> Optional[EvaluationResult]:
    """The fixture's answer for a check result: the EvaluationResult of a
    PASSED replay, None (and a warning) for CREATED/PENDING/UPDATED (no
    warning for an update that found its calls approved already), an
    AssertionError subclass for FAILED and the CI errors."""
    __tracebackhide__ = True
    outcome = res["outcome"]
    if outcome == "PASSED":
        return EvaluationResult(res["result"], report=res.get("report"), name=res["name"],
                                file=res["file"], outcome=outcome, message=res["message"])
    if outcome == "UPDATED" and res.get("written") is False:
        return None  # the calls were the approved ones already: nothing changed
    if outcome in ("CREATED", "PENDING", "UPDATED"):
        warnings.warn(SnapshotWarning(res["message"]), stacklevel=stacklevel + 1)
        return None
    cls: type = SnapshotError
    text = res["message"]
    result = None
    if outcome == "FAILED":
        cls = SnapshotMismatchError
        # The one-line verdict names the snapshot (a test may check several).
        if res.get("report"):
            text = f"{text}\n\n{res['report']}"
        if res.get("result") is not None:
            result = EvaluationResult(res["result"], report=res.get("report"), name=res["name"],
                                      file=res["file"], outcome=outcome, message=res["message"])
    elif outcome == "ERROR_MISSING_IN_CI":
        cls = SnapshotMissingInCIError
    elif outcome == "ERROR_PENDING_IN_CI":
        cls = SnapshotPendingInCIError
    raise cls(text, outcome=outcome, name=res["name"], file=res["file"], result=result)


def check_args(min_score: float, weights: Optional[Mapping[str, float]], rules: Any,
               format: Optional[str]) -> Optional[str]:
    """Checks the fixture's own arguments (the daemon checks the rest);
    the format to send (None for "auto")."""
    if rules is not None and not isinstance(rules, Mapping):
        raise TypeError(f"rules must be a dict of comparison rules (docs/rules.md), "
                        f"not {type(rules).__name__}")
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)):
        raise TypeError(f"min_score must be a number, not {type(min_score).__name__}")
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    return None if format in (None, "auto") else format


__all__ = ["client", "env_ci", "env_update", "env_truthy", "env_json_diff", "report_width", "DEFAULT_ROOT",
           "default_root"]

"""The programmatic API: ``SnapshotStore`` and ``snapshot_check``.

Mirrors the reference's ``toolscore.snapshots`` module, but every operation
goes through the toolscored daemon (which serializes concurrent workers and
writes durably): nothing here reads or writes a snapshot file itself.

    from toolscored import SnapshotStore, snapshot_check

    store = SnapshotStore(".toolscore/snapshots")
    result = snapshot_check("my_flow", my_agent("book a flight"), store=store)
    # None until the snapshot is approved, then an EvaluationResult.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _native
from ._errors import (NotFound, SnapshotError, SnapshotMismatch, SnapshotMissingInCI,
                      SnapshotPendingInCI, SnapshotWarning)
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
    default socket; the daemon is started when none answers)."""
    socket = os.environ.get("TOOLSCORE_SOCKET") or None
    c = _clients.get(socket)
    if c is None:
        c = _clients[socket] = _native.Client(socket)
    return c


def default_root() -> str:
    """The snapshot root used when none is given: $TOOLSCORE_DIR, else the
    nearest ``.toolscore/snapshots`` walking up from the current directory
    to the repository root (the first directory holding ``.git``), else
    ``.toolscore/snapshots`` under the repository root, or under the current
    directory outside a repository (as tsctl finds it)."""
    return os.environ.get("TOOLSCORE_DIR") or _native.default_root()[0]


def _root(store: Union["SnapshotStore", str, "os.PathLike[str]", None]) -> str:
    if isinstance(store, SnapshotStore):
        return store.root_str
    if store is None:
        store = default_root()
    return _native.resolve_store(os.fspath(store))


class Snapshot:
    """One snapshot file as stored: ``name``, ``calls`` (a list of
    ``{"tool", "args"}``), ``approved``, ``created_at``, ``updated_at``,
    ``source``, ``toolscore_version``, ``schema_version``, and ``path``."""

    __slots__ = ("name", "calls", "approved", "created_at", "updated_at", "source",
                 "toolscore_version", "schema_version", "path")

    def __init__(self, data: Mapping[str, Any], path: str) -> None:
        self.name: str = data.get("name", "")
        self.calls: List[Dict[str, Any]] = list(data.get("calls", []))
        self.approved: bool = bool(data.get("approved", False))
        self.created_at: str = data.get("created_at", "")
        self.updated_at: str = data.get("updated_at", "")
        self.source: str = data.get("source", "")
        self.toolscore_version: str = data.get("toolscore_version", "")
        self.schema_version: int = data.get("schema_version", 1)
        self.path = Path(path)

    def __repr__(self) -> str:
        return (f"Snapshot(name={self.name!r}, approved={self.approved!r}, "
                f"calls={len(self.calls)})")


class SnapshotInfo:
    """A listing entry: ``name``, ``approved``, ``calls`` (the number of
    calls), ``created_at``, ``updated_at``, ``source``, ``path``."""

    __slots__ = ("name", "approved", "calls", "created_at", "updated_at", "source", "path")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.name: str = data["name"]
        self.approved: bool = bool(data.get("approved"))
        self.calls: int = int(data.get("calls", 0))
        self.created_at: str = data.get("created_at", "")
        self.updated_at: str = data.get("updated_at", "")
        self.source: str = data.get("source", "")
        self.path = Path(data.get("file", ""))

    def __repr__(self) -> str:
        return f"SnapshotInfo(name={self.name!r}, approved={self.approved!r}, calls={self.calls})"


class SnapshotStore:
    """A snapshot root (default: ``default_root()``, the project's
    ``.toolscore/snapshots``), operated through the daemon."""

    def __init__(self, root: Union[str, "os.PathLike[str]", None] = None) -> None:
        if root is None:
            root = default_root()
        self.root_str: str = _native.resolve_store(os.fspath(root))
        self.root = Path(self.root_str)

    def __repr__(self) -> str:
        return f"SnapshotStore({self.root_str!r})"

    def path_for(self, name: str) -> Path:
        """The file the snapshot called name lives in (it may not exist)."""
        return self.root / _native.snapshot_filename(name)

    def list(self, *, pending: bool = False) -> List[SnapshotInfo]:
        """Every snapshot (only the unapproved ones with pending=True),
        sorted by name. Files in the root that are not snapshots are left
        out (``problems()`` names them)."""
        res = client().list(self.root_str, pending=pending)
        return [SnapshotInfo(s) for s in res["snapshots"]]

    def problems(self) -> List[Dict[str, str]]:
        """Files in the root that are not readable snapshots:
        ``[{"file", "message"}]``."""
        return list(client().list(self.root_str)["problems"])

    def names(self) -> List[str]:
        return [s.name for s in self.list()]

    def load(self, name: str) -> Snapshot:
        """The snapshot called name; ``NotFound`` (a LookupError) when there
        is none."""
        res = client().show(self.root_str, name)
        return Snapshot(res["snapshot"], res["file"])

    def exists(self, name: str) -> bool:
        try:
            client().show(self.root_str, name)
        except NotFound:
            return False
        return True

    def approve(self, *names: str, all: bool = False) -> List[str]:
        """Approve the named snapshots (all of them or none: an unknown
        name raises NotFound), or every pending one with all=True; the
        names approved."""
        res = client().approve(self.root_str, list(names), all=all)
        return [a["name"] for a in res["approved"]]

    def delete(self, name: str) -> Path:
        """Remove the snapshot; its former path. NotFound when absent."""
        return Path(client().rm(self.root_str, name)["file"])


def _outcome_to_python(res: Dict[str, Any], stacklevel: int) -> Optional[EvaluationResult]:
    """The fixture's answer for a check result: the EvaluationResult of a
    PASSED replay, None (and a warning) for CREATED/PENDING/UPDATED, an
    AssertionError subclass for FAILED and the CI errors."""
    __tracebackhide__ = True
    outcome = res["outcome"]
    if outcome == "PASSED":
        return EvaluationResult(res["result"], report=res.get("report"), name=res["name"],
                                file=res["file"], outcome=outcome, message=res["message"])
    if outcome in ("CREATED", "PENDING", "UPDATED"):
        warnings.warn(SnapshotWarning(res["message"]), stacklevel=stacklevel + 1)
        return None
    cls: type = SnapshotError
    text = res["message"]
    result = None
    if outcome == "FAILED":
        cls = SnapshotMismatch
        # The one-line verdict names the snapshot (a test may check several).
        if res.get("report"):
            text = f"{text}\n\n{res['report']}"
        if res.get("result") is not None:
            result = EvaluationResult(res["result"], report=res.get("report"), name=res["name"],
                                      file=res["file"], outcome=outcome, message=res["message"])
    elif outcome == "ERROR_MISSING_IN_CI":
        cls = SnapshotMissingInCI
    elif outcome == "ERROR_PENDING_IN_CI":
        cls = SnapshotPendingInCI
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


def snapshot_check(name: str, actual: Any, *,
                   store: Union[SnapshotStore, str, "os.PathLike[str]", None] = None,
                   min_score: float = 1.0, weights: Optional[Mapping[str, float]] = None,
                   strict: bool = False, update: Optional[bool] = None,
                   ci: Optional[bool] = None, allow_pending: bool = False,
                   rules: Any = None, format: str = "auto", run: Optional[str] = None,
                   test: Optional[str] = None) -> Optional[EvaluationResult]:
    """One pass of the snapshot state machine for name, through the daemon.

    ``actual`` is any raw agent response or a list of ``{"tool", "args"}``
    (the daemon extracts the calls). ``update`` and ``ci`` default to the
    environment (TOOLSCORE_RECORD_UPDATE, CI). Returns the EvaluationResult
    when an approved baseline was replayed and passed; None after a
    UserWarning when the snapshot was created, is pending or was updated;
    raises SnapshotMismatch (FAILED, the drift report as its text) or
    SnapshotMissingInCI / SnapshotPendingInCI, all AssertionErrors.
    ``run`` defaults to TOOLSCORE_RUN.
    """
    __tracebackhide__ = True
    fmt = check_args(min_score, weights, rules, format)
    if update is None:
        update = env_update()
    if ci is None:
        ci = env_ci()
    if run is None:
        run = os.environ.get("TOOLSCORE_RUN") or None
    res = client().check(_root(store), name, actual, format=fmt, min_score=float(min_score),
                         weights=weights, strict=bool(strict), ci=bool(ci),
                         update=bool(update), allow_pending=bool(allow_pending), run=run,
                         test=test, rules=None if rules is None else dict(rules),
                         width=report_width(), json_diff=env_json_diff())
    return _outcome_to_python(res, stacklevel=2)


__all__ = ["Snapshot", "SnapshotInfo", "SnapshotStore", "snapshot_check", "client",
           "env_ci", "env_update", "env_truthy", "env_json_diff", "report_width", "DEFAULT_ROOT",
           "default_root"]

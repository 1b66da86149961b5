"""The programmatic API: ``Snapshot``, ``SnapshotStore`` and ``snapshot_check``.

A drop-in for the reference tool's ``toolscore.snapshots`` module: the same
names, signatures, defaults, return types, warnings and exception types
(our exceptions derive from the built-in ones the reference raises), so
code written for it runs after changing ``toolscore`` to ``toolscored`` in
its imports. Every operation goes through the toolscored daemon, which
serializes the writes of scripts and parallel test workers and writes
durably: nothing here writes a snapshot file or reads one's contents
itself. Where the reference's behaviour cannot hold through a daemon,
docs/pytest.md ("The programmatic API") says what differs.

    from toolscored.snapshots import SnapshotStore, snapshot_check

    store = SnapshotStore(".toolscore/snapshots")
    result = snapshot_check("my_flow", my_agent("book a flight"), store=store)
    # None until the snapshot is approved, then an EvaluationResult.
"""

from __future__ import annotations

import builtins
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _package

_package.require_native()

from . import _native  # noqa: E402 - after the check above
from ._errors import InvalidSnapshotError, NotFoundError, NotJSONSerializableError, ToolscoreError
from .api import (DEFAULT_ROOT, _outcome_to_python, check_args, client, default_root, env_ci,
                  env_json_diff, env_update, report_width)
from .result import EvaluationResult

#: The snapshot file format's version (docs/snapshots.md).
SCHEMA_VERSION = 1

PathArg = Union[str, "os.PathLike[str]"]

# docs/snapshots.md, "Store and file names", step 2 (after "::" -> "__").
_UNSAFE = re.compile(r'[/\\:\[\]<>|*?"]|\s')


def _now() -> str:
    """Now, UTC, ISO-8601 with microseconds (always: as the daemon writes)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _sanitize_name(name: str) -> str:
    """The file-name stem of name before its cut to 100 code points
    (docs/snapshots.md): ``::`` and then every path, glob or redirection
    character and whitespace become ``__``, dots are stripped from both
    ends, and nothing left is ``snapshot``. The reference's helper of the
    same name; ``SnapshotStore.path_for`` gives the whole file name."""
    stem = _UNSAFE.sub("__", name.replace("::", "__")).strip(".")
    return stem if stem else "snapshot"


@dataclass
class Snapshot:
    """One snapshot: the calls an agent made for one test, as its file holds
    them. ``created_at``, ``updated_at`` (the same instant) and
    ``toolscore_version`` (this package's) are filled in when left empty.

    ``name``: the snapshot's name (usually a pytest node id); ``calls``: a
    list of ``{"tool": ..., "args": {...}}``; ``approved``: whether a person
    approved it as the baseline; ``source``: ``"pytest"``, ``"record"`` or
    ``"trace"``.
    """

    name: str
    calls: List[Dict[str, Any]] = field(default_factory=list)
    approved: bool = False
    source: str = "pytest"
    created_at: str = ""
    updated_at: str = ""
    schema_version: int = SCHEMA_VERSION
    toolscore_version: str = ""

    def __post_init__(self) -> None:
        if not self.created_at:
            self.created_at = _now()
        if not self.updated_at:
            self.updated_at = self.created_at
        if not self.toolscore_version:
            self.toolscore_version = _native.__version__

    def to_dict(self) -> Dict[str, Any]:
        """The file's object: its keys in the file's order (the calls are
        this snapshot's list, not a copy)."""
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "toolscore_version": self.toolscore_version,
            "approved": self.approved,
            "source": self.source,
            "calls": self.calls,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Snapshot":
        """The snapshot of a file's object (``to_dict``'s shape); only
        ``name`` is required (a KeyError without it), the rest defaults."""
        return cls(
            name=data["name"],
            calls=list(data.get("calls", [])),
            approved=bool(data.get("approved", False)),
            source=data.get("source", "pytest"),
            created_at=data.get("created_at", ""),
            updated_at=data.get("updated_at", ""),
            schema_version=int(data.get("schema_version", SCHEMA_VERSION)),
            toolscore_version=data.get("toolscore_version", ""),
        )


class SnapshotInfo:
    """A listing entry, without the calls (``SnapshotStore.entries``):
    ``name``, ``approved``, ``calls`` (how many), ``created_at``,
    ``updated_at``, ``source``, ``path``."""

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
    """A snapshot root, operated through the daemon. ``root`` defaults to
    ``default_root()``: $TOOLSCORE_DIR, else the project's
    ``.toolscore/snapshots`` (tsctl's rule); a relative root is taken from
    the current directory now. Nothing is created until the first write."""

    def __init__(self, root: Optional[PathArg] = None) -> None:
        if root is None:
            root = default_root()
        self.root_str: str = _native.resolve_store(os.fspath(root))
        self.root = Path(self.root_str)

    def __repr__(self) -> str:
        return f"SnapshotStore({self.root_str!r})"

    def path_for(self, name: str) -> Path:
        """The file the snapshot called name lives in (it may not exist):
        ``<stem>-<sha1(name)[:8]>.json`` directly under the root, whatever
        the name holds."""
        return self.root / _native.snapshot_filename(name)

    def exists(self, name: str) -> bool:
        """Whether name's file is there (readable or not)."""
        return self.path_for(name).exists()

    def load(self, name: str) -> Optional[Snapshot]:
        """The snapshot called name, or None when there is none.
        ``InvalidSnapshotError`` (a ValueError naming the file) when its
        file is not a snapshot."""
        try:
            res = client().show(self.root_str, name)
        except NotFoundError:
            return None
        return Snapshot.from_dict(res["snapshot"])

    def save(self, snapshot: Snapshot) -> Path:
        """Write snapshot as it is (``updated_at`` set to now first), through
        the daemon, durably; the root is made when missing. Its path.

        A value in it that is not JSON raises ``NotJSONSerializableError``
        (a ValueError and a TypeError) and a snapshot the daemon could not
        read back (a call without a ``"tool"``, ...) ``InvalidSnapshotError``;
        either way nothing is written and an existing file stays as it was.
        """
        if not isinstance(snapshot, Snapshot):
            raise TypeError(f"save() takes a Snapshot, not {type(snapshot).__name__}")
        snapshot.updated_at = _now()
        try:
            res = client().save(self.root_str, snapshot.to_dict())
        except (TypeError, ValueError) as e:
            if isinstance(e, ToolscoreError):
                raise
            raise NotJSONSerializableError(
                f"cannot save snapshot {snapshot.name!r}: every value in it must be "
                f"JSON-serializable: {e}") from e
        return Path(res["file"])

    def approve(self, name: Optional[str] = None, *names: str,
                all: bool = False) -> Union[Snapshot, List[Snapshot]]:
        """Approve a snapshot and return it as approved: ``approve(name)``
        (``NotFoundError``, a KeyError, when there is none). Also
        ``approve(a, b, ...)`` (all of them or, when one is unknown, none)
        and ``approve(all=True)`` (every pending one), which return the
        list of snapshots approved. One already approved is left as it is."""
        given = ([] if name is None else [name]) + builtins.list(names)
        if all and given:
            raise TypeError("approve() takes names or all=True, not both")
        if not all and not given:
            raise TypeError("approve() needs a name, several names, or all=True")
        res = client().approve(self.root_str, None if all else given, all=all)
        approved = [self._reread(a["name"]) for a in res["approved"]]
        if not all and len(given) == 1:
            return approved[0]
        return approved

    def _reread(self, name: str) -> Snapshot:
        snap = self.load(name)
        if snap is None:
            raise NotFoundError(f"snapshot {name!r} was approved, then removed before it was read",
                                "not_found")
        return snap

    def delete(self, name: str, *, missing_ok: bool = True) -> Optional[Path]:
        """Delete the snapshot; the path it had, or None when there was
        none (``NotFoundError`` then with missing_ok=False)."""
        try:
            return Path(client().rm(self.root_str, name)["file"])
        except NotFoundError:
            if missing_ok:
                return None
            raise

    def list(self, *, pending: bool = False) -> List[Snapshot]:
        """Every snapshot (only the unapproved ones with pending=True),
        sorted by name. Files in the root that are not snapshots are left
        out (``problems()`` names them)."""
        out: List[Snapshot] = []
        for entry in self.entries(pending=pending):
            try:
                snap = self.load(entry.name)
            except InvalidSnapshotError:
                continue  # broken since it was listed
            if snap is not None and not (pending and snap.approved):
                out.append(snap)
        return out

    def pending(self) -> List[Snapshot]:
        """Every snapshot not approved yet, sorted by name."""
        return self.list(pending=True)

    def entries(self, *, pending: bool = False) -> List[SnapshotInfo]:
        """The listing without the calls (one request however many
        snapshots), sorted by name."""
        res = client().list(self.root_str, pending=pending)
        return [SnapshotInfo(s) for s in res["snapshots"]]

    def names(self) -> List[str]:
        return [s.name for s in self.entries()]

    def problems(self) -> List[Dict[str, str]]:
        """Files in the root that are not readable snapshots:
        ``[{"file", "message"}]``."""
        return builtins.list(client().list(self.root_str)["problems"])


def _root(store: Union[SnapshotStore, PathArg, None]) -> str:
    if isinstance(store, SnapshotStore):
        return store.root_str
    if store is None:
        store = default_root()
    return _native.resolve_store(os.fspath(store))


def snapshot_check(name: str, actual: Any, *,
                   store: Union[SnapshotStore, PathArg, None] = None,
                   update: Optional[bool] = False, min_score: float = 1.0,
                   weights: Optional[Mapping[str, float]] = None, strict: bool = False,
                   ci: Optional[bool] = None, allow_pending: bool = False,
                   rules: Any = None, format: str = "auto", run: Optional[str] = None,
                   test: Optional[str] = None) -> Optional[EvaluationResult]:
    """One pass of the snapshot state machine for name, through the daemon.

    ``actual`` is any raw agent response or a list of ``{"tool", "args"}``
    (the daemon extracts the calls). Returns the EvaluationResult when an
    approved baseline was replayed and passed; None after a UserWarning
    (``SnapshotWarning``) when the snapshot was created, is pending or was
    updated (``update=True``: overwritten and approved); raises
    ``SnapshotMismatchError`` (the drift report as its text) or
    ``SnapshotMissingInCIError`` / ``SnapshotPendingInCIError``, all
    ``SnapshotError`` (the reference's ``ToolScoreAssertionError``), an
    AssertionError.

    ``store``: a SnapshotStore or a root path (default ``default_root()``).
    ``ci`` defaults to the environment (CI set and non-empty) and
    ``update=None`` means TOOLSCORE_RECORD_UPDATE's; ``allow_pending``,
    ``rules``, ``format``, ``run`` (default TOOLSCORE_RUN) and ``test`` are
    the fixture's options (docs/pytest.md).
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


__all__ = ["DEFAULT_ROOT", "SCHEMA_VERSION", "Snapshot", "SnapshotInfo", "SnapshotStore",
           "snapshot_check"]

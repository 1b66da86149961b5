"""toolscored: snapshot testing for AI-agent tool calls, from Python.

The pytest plugin (the ``toolscore_snapshot`` fixture, loaded by pytest
automatically) and the programmatic API over the toolscored daemon,
``toolscored.snapshots``, a drop-in for the reference tool's
``toolscore.snapshots``::

    from toolscored import SnapshotStore, snapshot_check

The C extension ``toolscored._native`` carries libtoolscore-client. When it
does not load in this Python, importing the package still works (the
console scripts and the pytest entry point say what is wrong in one line)
and its API names raise ImportError with that line (_package.py).
"""

from typing import Any

from . import _package

if _package.native_problem() is None:
    from ._errors import (DaemonUnavailable, DaemonUnavailableError, FormatError, InvalidInput,
                          InvalidInputError, InvalidSnapshotError, NotFound, NotFoundError,
                          NotJSONSerializableError, SnapshotError, SnapshotMismatch,
                          SnapshotMismatchError, SnapshotMissingInCI, SnapshotMissingInCIError,
                          SnapshotPendingInCI, SnapshotPendingInCIError, SnapshotWarning,
                          StorageError, ToolScoreAssertionError, ToolscoreError)
    from .result import EvaluationResult
    from .snapshots import Snapshot, SnapshotInfo, SnapshotStore, snapshot_check
else:
    def __getattr__(name: str) -> Any:
        _package.missing(name, __all__)

__version__ = _package.VERSION

__all__ = [
    "DaemonUnavailableError", "EvaluationResult", "FormatError", "InvalidInputError",
    "InvalidSnapshotError", "NotFoundError", "NotJSONSerializableError", "Snapshot",
    "SnapshotError", "SnapshotInfo", "SnapshotMismatchError", "SnapshotMissingInCIError",
    "SnapshotPendingInCIError", "SnapshotStore", "SnapshotWarning", "StorageError",
    "ToolScoreAssertionError", "ToolscoreError", "snapshot_check", "__version__",
    # the names of earlier versions (the same classes)
    "DaemonUnavailable", "InvalidInput", "NotFound", "SnapshotMismatch", "SnapshotMissingInCI",
    "SnapshotPendingInCI",
]

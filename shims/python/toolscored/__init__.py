"""toolscored: snapshot testing for AI-agent tool calls, from Python.

The pytest plugin (the ``toolscore_snapshot`` fixture, loaded by pytest
automatically) and a small API over the toolscored daemon, a drop-in for the
reference tool's ``toolscore.snapshots``::

    from toolscored import SnapshotStore, snapshot_check

The C extension ``toolscored._native`` carries libtoolscore-client. When it
does not load in this Python, importing the package still works (the
console scripts and the pytest entry point say what is wrong in one line)
and its API names raise ImportError with that line (_package.py).
"""

from typing import Any

from . import _package

if _package.native_problem() is None:
    from ._errors import (DaemonUnavailable, InvalidInput, NotFound, SnapshotError,
                          SnapshotMismatch, SnapshotMissingInCI, SnapshotPendingInCI,
                          SnapshotWarning, ToolscoreError)
    from .api import Snapshot, SnapshotInfo, SnapshotStore, snapshot_check
    from .result import EvaluationResult
else:
    def __getattr__(name: str) -> Any:
        _package.missing(name, __all__)

__version__ = _package.VERSION

__all__ = [
    "DaemonUnavailable", "EvaluationResult", "InvalidInput", "NotFound", "Snapshot",
    "SnapshotError", "SnapshotInfo", "SnapshotMismatch", "SnapshotMissingInCI",
    "SnapshotPendingInCI", "SnapshotStore", "SnapshotWarning", "ToolscoreError",
    "snapshot_check", "__version__",
]

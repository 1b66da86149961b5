"""toolscored: snapshot testing for AI-agent tool calls, from Python.

The pytest plugin (the ``toolscore_snapshot`` fixture, loaded by pytest
automatically) and a small API over the toolscored daemon, a drop-in for the
reference tool's ``toolscore.snapshots``::

    from toolscored import SnapshotStore, snapshot_check

The C extension ``toolscored._native`` carries libtoolscore-client.
"""

from ._errors import (DaemonUnavailable, InvalidInput, NotFound, SnapshotError,
                      SnapshotMismatch, SnapshotMissingInCI, SnapshotPendingInCI,
                      SnapshotWarning, ToolscoreError)
from .api import Snapshot, SnapshotInfo, SnapshotStore, snapshot_check
from .result import EvaluationResult

__version__ = "@VERSION@"

__all__ = [
    "DaemonUnavailable", "EvaluationResult", "InvalidInput", "NotFound", "Snapshot",
    "SnapshotError", "SnapshotInfo", "SnapshotMismatch", "SnapshotMissingInCI",
    "SnapshotPendingInCI", "SnapshotStore", "SnapshotWarning", "ToolscoreError",
    "snapshot_check", "__version__",
]

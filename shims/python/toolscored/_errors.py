"""Exceptions of the toolscored package.

Two families: failures of the snapshot check itself (``SnapshotError`` and
its subclasses, all ``AssertionError`` so pytest reports a failed test) and
failures to talk to toolscored (``ToolscoreError`` and its subclasses, which
the pytest plugin reports as a test ERROR).
"""

from __future__ import annotations

from typing import Any, Optional


class ToolscoreError(Exception):
    """toolscored could not do what was asked; ``code`` is the stable error
    code of the daemon or the client library (docs/protocol.md)."""

    def __init__(self, message: str, code: str = "internal") -> None:
        super().__init__(message)
        self.code = code

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DaemonUnavailable(ToolscoreError, ConnectionError):
    """No daemon answered on the socket and none could be started, or the
    connection broke; the message names the socket and the reason."""


class NotFound(ToolscoreError, LookupError):
    """No such snapshot (or run)."""


class InvalidInput(ToolscoreError, ValueError):
    """The daemon refused the input: calls it cannot read, a bad name, bad
    weights or min_score, a value too large."""


class SnapshotError(AssertionError):
    """A snapshot check that fails the test: the text is the drift report
    (FAILED) or the CI message. ``outcome``, ``name``, ``file`` and
    ``result`` (an EvaluationResult or None) say what happened."""

    def __init__(self, text: str, *, outcome: str, name: str, file: str,
                 result: Optional[Any] = None) -> None:
        super().__init__(text)
        self.text = text
        self.outcome = outcome
        self.name = name
        self.file = file
        self.result = result

    def __str__(self) -> str:
        return self.text


class SnapshotMismatch(SnapshotError):
    """The replay of an approved baseline scored below min_score (FAILED);
    the text is the drift report."""


class SnapshotMissingInCI(SnapshotError):
    """CI: the snapshot does not exist, and snapshots are never created in CI."""


class SnapshotPendingInCI(SnapshotError):
    """CI: the snapshot exists but was never approved."""


class SnapshotWarning(UserWarning):
    """A check that did not evaluate: the snapshot was created, is pending
    approval, or was updated (the message says which)."""


for _cls in (ToolscoreError, DaemonUnavailable, NotFound, InvalidInput, SnapshotError,
             SnapshotMismatch, SnapshotMissingInCI, SnapshotPendingInCI, SnapshotWarning):
    _cls.__module__ = "toolscored"  # shown as toolscored.SnapshotMismatch
del _cls

"""Exceptions of the toolscored package.

Two families: failures of the snapshot check itself (``SnapshotError`` and
its subclasses, all ``AssertionError`` so pytest reports a failed test) and
failures to talk to toolscored (``ToolscoreError`` and its subclasses, which
the pytest plugin reports as a test ERROR). Each class also derives from the
built-in exception the reference tool raises in the same case (``KeyError``
for a missing snapshot, ``ValueError`` for a broken snapshot file or a
refused value), so code written for either catches it.

The names follow PEP 8 (``...Error``); the names of earlier versions
(``SnapshotMismatch``, ``DaemonUnavailable``, ...) are the same classes.
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


class DaemonUnavailableError(ToolscoreError, ConnectionError):
    """No daemon answered on the socket and none could be started, or the
    connection broke; the message names the socket and the reason."""


class NotFoundError(ToolscoreError, KeyError):
    """No such snapshot (or run). A ``KeyError``, as the reference's
    ``SnapshotStore.approve`` raises for an unknown name."""


class InvalidInputError(ToolscoreError, ValueError):
    """The daemon refused the input: calls it cannot read, a bad name, bad
    weights or min_score, a value too large."""


class FormatError(InvalidInputError, TypeError):
    """The response given to a check is of no shape the extraction reads
    (none detected, or not the format named), or is None. Both a
    ``ValueError`` and the ``TypeError`` the reference's ``auto_extract``
    raises."""


class InvalidSnapshotError(ToolscoreError, ValueError):
    """A snapshot file that is not a snapshot (not JSON, the wrong shape),
    or a snapshot to save that could not be read back; the message names
    the file or the snapshot. A ``ValueError``, as the reference's
    ``SnapshotStore.load`` raises for a corrupt file."""


class StorageError(ToolscoreError, OSError):
    """The daemon could not read or write the files it was asked about (a
    system call failed: a root that is not a directory, a disk full, no
    permission); the message names the path and the reason. An
    ``OSError``, as the reference's file operations raise."""


class NotJSONSerializableError(TypeError, ValueError):
    """A value that cannot be sent as JSON (the message names its type and
    where it is inside the value). Both a ``TypeError`` (what
    ``json.dumps`` raises) and a ``ValueError`` (what the reference's
    ``SnapshotStore.save`` raises)."""


class SnapshotError(AssertionError):
    """A snapshot check that fails the test: the text is the drift report
    (FAILED) or the CI message. ``outcome``, ``name``, ``file`` and
    ``result`` (an EvaluationResult or None) say what happened. The
    reference's ``ToolScoreAssertionError`` is this class."""

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


class SnapshotMismatchError(SnapshotError):
    """The replay of an approved baseline scored below min_score (FAILED);
    the text is the drift report."""


class SnapshotMissingInCIError(SnapshotError):
    """CI: the snapshot does not exist, and snapshots are never created in CI."""


class SnapshotPendingInCIError(SnapshotError):
    """CI: the snapshot exists but was never approved."""


class SnapshotWarning(UserWarning):
    """A check that did not evaluate: the snapshot was created, is pending
    approval, or was updated (the message says which)."""


for _cls in (ToolscoreError, DaemonUnavailableError, NotFoundError, InvalidInputError,
             FormatError, InvalidSnapshotError, StorageError, NotJSONSerializableError,
             SnapshotError, SnapshotMismatchError, SnapshotMissingInCIError,
             SnapshotPendingInCIError, SnapshotWarning):
    _cls.__module__ = "toolscored"  # shown as toolscored.SnapshotMismatchError
del _cls

# The reference's name for a failed snapshot check (toolscore.core).
ToolScoreAssertionError = SnapshotError

# The names of earlier versions: the same classes.
DaemonUnavailable = DaemonUnavailableError
NotFound = NotFoundError
InvalidInput = InvalidInputError
SnapshotMismatch = SnapshotMismatchError
SnapshotMissingInCI = SnapshotMissingInCIError
SnapshotPendingInCI = SnapshotPendingInCIError

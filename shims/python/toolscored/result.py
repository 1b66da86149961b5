"""The result of a replayed snapshot: ``EvaluationResult``.

Returned by the ``toolscore_snapshot`` fixture and ``snapshot_check`` when an
approved baseline was replayed (PASSED), and attached to the exception of a
FAILED check (``SnapshotMismatch.result``). Every metric of the daemon's
check result is an attribute, under the names the reference's
``EvaluationResult`` uses.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

#: Metric attributes, in the order the daemon sends them (scoring.md).
METRICS = (
    "score", "grade", "invocation_accuracy", "selection_accuracy",
    "argument_precision", "argument_recall", "argument_f1", "edit_distance",
    "normalized_distance", "sequence_accuracy", "redundant_count",
    "total_calls", "redundant_rate", "tool_correctness",
    "trajectory_accuracy", "step_match_rate", "path_efficiency",
    "expected_tools", "called_tools", "missing_tools", "extra_tools",
    "passed", "min_score",
)


class EvaluationResult:
    """Scores of one replay against its approved baseline.

    ``score`` (the composite, 0..1), ``grade`` (A-F), ``passed`` (score >=
    min_score), the per-metric values (``selection_accuracy``,
    ``argument_f1``, ``sequence_accuracy``, ``redundant_rate``, ...), the
    tool lists (``expected_tools``, ``called_tools``, ``missing_tools``,
    ``extra_tools``), and ``report``: the drift report, or None when the
    replay matched. ``name``, ``file`` and ``outcome`` say which snapshot
    it was and what the check concluded.
    """

    __slots__ = ("_metrics", "report", "name", "file", "outcome", "message")

    # Declared for type checkers; the values come from _metrics.
    score: float
    grade: str
    passed: bool
    invocation_accuracy: float
    selection_accuracy: float
    argument_precision: float
    argument_recall: float
    argument_f1: float
    edit_distance: int
    normalized_distance: float
    sequence_accuracy: float
    redundant_count: int
    total_calls: int
    redundant_rate: float
    tool_correctness: float
    trajectory_accuracy: float
    step_match_rate: float
    path_efficiency: float
    expected_tools: List[str]
    called_tools: List[str]
    missing_tools: List[str]
    extra_tools: List[str]
    min_score: float

    def __init__(self, metrics: Dict[str, Any], *, report: Optional[str] = None,
                 name: str = "", file: str = "", outcome: str = "",
                 message: str = "") -> None:
        self._metrics = metrics
        self.report = report
        self.name = name
        self.file = file
        self.outcome = outcome
        self.message = message

    def __getattr__(self, key: str) -> Any:
        # Only reached for names not in __slots__: the metrics.
        try:
            return self._metrics[key]
        except KeyError:
            raise AttributeError(
                f"'EvaluationResult' has no attribute {key!r}") from None

    def __dir__(self) -> List[str]:
        return sorted(set(object.__dir__(self)) | set(self._metrics))

    def to_dict(self) -> Dict[str, Any]:
        """The metrics as a plain dict (a copy)."""
        return dict(self._metrics)

    def __bool__(self) -> bool:
        return bool(self._metrics.get("passed", False))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvaluationResult):
            return NotImplemented
        return self._metrics == other._metrics and self.name == other.name

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"EvaluationResult(name={self.name!r}, score={self._metrics.get('score')!r}, "
                f"grade={self._metrics.get('grade')!r}, passed={self._metrics.get('passed')!r})")

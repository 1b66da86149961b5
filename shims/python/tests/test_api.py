"""The programmatic API (SnapshotStore, snapshot_check) and the C module's
value conversion, in this process against the test daemon."""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import pytest

import toolscored
from toolscored import SnapshotStore, _native, snapshot_check


def test_snapshot_check_and_store(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    calls = [{"tool": "search", "args": {"q": "x"}}]
    assert store.list() == [] and not store.exists("flow")
    with pytest.warns(toolscored.SnapshotWarning, match="snapshot 'flow' created"):
        assert snapshot_check("flow", calls, store=store) is None
    assert store.exists("flow")
    digest = hashlib.sha1(b"flow").hexdigest()[:8]
    assert store.path_for("flow") == tmp_path / "snaps" / f"flow-{digest}.json"
    assert store.path_for("flow").is_file()
    (info,) = store.list()
    assert (info.name, info.approved, info.calls) == ("flow", False, 1)
    assert [s.name for s in store.list(pending=True)] == ["flow"]
    snap = store.load("flow")
    assert snap.calls == calls and snap.approved is False and snap.source == "pytest"
    with pytest.warns(UserWarning, match="pending approval"):
        assert snapshot_check("flow", calls, store=store) is None
    assert store.approve("flow") == ["flow"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = snapshot_check("flow", calls, store=str(store.root))
    assert isinstance(result, toolscored.EvaluationResult)
    assert result.passed and result.score > 0.999 and "score" in dir(result)
    assert result.to_dict()["grade"] == "A"
    with pytest.raises(toolscored.SnapshotMismatch) as info:
        snapshot_check("flow", [{"tool": "other", "args": {}}], store=store)
    assert "Expected vs Actual Tool Calls" in str(info.value)
    with pytest.raises(toolscored.SnapshotMissingInCI):
        snapshot_check("new", calls, store=store, ci=True)
    assert not store.exists("new")
    with pytest.warns(UserWarning, match="updated"):
        snapshot_check("flow", [{"tool": "other", "args": {}}], store=store, update=True)
    assert store.load("flow").calls == [{"tool": "other", "args": {}}]
    assert store.delete("flow") == store.path_for("flow")
    with pytest.raises(toolscored.NotFound):
        store.load("flow")
    with pytest.raises(LookupError):
        store.approve("nope")


def test_env_rules() -> None:
    from toolscored import api
    for v, want in [(None, False), ("", False), ("0", False), (" False ", False), ("no", False),
                    ("1", True), ("yes", True), ("true", True), ("anything", True)]:
        assert api.env_truthy(v) is want, v


def test_conversion_keeps_values_exact() -> None:
    v = {"i": [0, -1, 2**63 - 1, -2**63, 2**64 - 1], "f": [0.1, -0.0, 1e308], "s": "é😀\x00",
         "t": (1, [2]), "b": [True, False, None], "order": {"z": 1, "a": 2}}
    out = _native.to_json(v)
    assert out == {**v, "t": [1, [2]]}
    assert list(out["order"]) == ["z", "a"]
    assert type(out["f"][0]) is float and type(out["i"][0]) is int


def test_client_errors_name_the_socket(tmp_path: Path) -> None:
    sock = str(tmp_path / "none" / "x.sock")
    c = _native.Client(sock, autostart=False, connect_timeout_ms=50)
    with pytest.raises(toolscored.DaemonUnavailable) as info:
        c.ping()
    assert sock in str(info.value) and info.value.code == "unavailable"
    assert isinstance(info.value, ConnectionError)
    assert c.socket_path == sock
    assert _native.Client().socket_path == os.environ["TOOLSCORE_SOCKET"]

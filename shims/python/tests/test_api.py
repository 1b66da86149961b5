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
    (info,) = store.entries()
    assert (info.name, info.approved, info.calls) == ("flow", False, 1)
    assert info.path == store.path_for("flow")
    assert [s.name for s in store.list(pending=True)] == ["flow"]
    snap = store.load("flow")
    assert snap.calls == calls and snap.approved is False and snap.source == "pytest"
    with pytest.warns(UserWarning, match="pending approval"):
        assert snapshot_check("flow", calls, store=store) is None
    approved = store.approve("flow")
    assert isinstance(approved, toolscored.Snapshot) and approved.approved
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = snapshot_check("flow", calls, store=str(store.root))
    assert isinstance(result, toolscored.EvaluationResult)
    assert result.passed and result.score > 0.999 and "score" in dir(result)
    assert result.to_dict()["grade"] == "A"
    with pytest.raises(toolscored.SnapshotMismatchError) as info:
        snapshot_check("flow", [{"tool": "other", "args": {}}], store=store)
    assert "Expected vs Actual Tool Calls" in str(info.value)
    with pytest.raises(toolscored.SnapshotMissingInCIError):
        snapshot_check("new", calls, store=store, ci=True)
    assert not store.exists("new")
    with pytest.warns(UserWarning, match="updated"):
        snapshot_check("flow", [{"tool": "other", "args": {}}], store=store, update=True)
    assert store.load("flow").calls == [{"tool": "other", "args": {}}]
    assert store.delete("flow") == store.path_for("flow")
    assert store.load("flow") is None and store.delete("flow") is None
    with pytest.raises(toolscored.NotFoundError):
        store.delete("flow", missing_ok=False)
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
    with pytest.raises(toolscored.DaemonUnavailableError) as info:
        c.ping()
    assert sock in str(info.value) and info.value.code == "unavailable"
    assert isinstance(info.value, ConnectionError)
    assert c.socket_path == sock
    assert _native.Client().socket_path == os.environ["TOOLSCORE_SOCKET"]


def test_default_root_is_the_projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No root given and no TOOLSCORE_DIR: the nearest .toolscore/snapshots up
    to the repository root, else the repository root's (tsctl's rule)."""
    from toolscored import api
    base = Path(os.path.realpath(tmp_path))
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir(parents=True)
    monkeypatch.delenv("TOOLSCORE_DIR", raising=False)
    monkeypatch.chdir(repo / "pkg" / "sub")
    root, why = _native.default_root()
    assert root == str(repo / ".toolscore" / "snapshots")
    assert why == f"none found up to the repository root {repo}, which holds .git"
    assert SnapshotStore().root == repo / ".toolscore" / "snapshots"
    (repo / "pkg" / ".toolscore" / "snapshots").mkdir(parents=True)
    assert api.default_root() == str(repo / "pkg" / ".toolscore" / "snapshots")
    assert _native.default_root()[1] == f"found walking up from {repo / 'pkg' / 'sub'}"
    snapshot_check_calls = [{"tool": "t", "args": {}}]
    with pytest.warns(toolscored.SnapshotWarning, match="created"):
        snapshot_check("nested", snapshot_check_calls)
    assert SnapshotStore(repo / "pkg" / ".toolscore" / "snapshots").exists("nested")
    assert not (repo / "pkg" / "sub" / ".toolscore").exists()
    monkeypatch.setenv("TOOLSCORE_DIR", str(base / "elsewhere"))
    assert SnapshotStore().root == base / "elsewhere"
    outside = base / "plain" / "dir"
    outside.mkdir(parents=True)
    monkeypatch.delenv("TOOLSCORE_DIR")
    monkeypatch.chdir(outside)
    assert _native.default_root() == (
        str(outside / ".toolscore" / "snapshots"),
        "none found and not in a repository: under the current directory")


def test_name_lists_are_checked_before_any_request(tmp_path: Path) -> None:
    # no daemon behind this socket: a bad list is refused before connecting
    c = _native.Client(str(tmp_path / "none.sock"))
    for method, args, kw in (("run_partial", ("r", "one reason"), {}),
                             ("approve", (str(tmp_path),), {"names": "n"})):
        with pytest.raises(TypeError, match="must be a list of str, not one str"):
            getattr(c, method)(*args, **kw)
    with pytest.raises(TypeError, match=r"reasons\[1\] is a 'int', not a str"):
        c.run_partial("r", ["ok", 3])
    with pytest.raises(TypeError, match=r"names\[0\] is a 'bytes', not a str"):
        c.approve(str(tmp_path), names=[b"n"])
    with pytest.raises(TypeError, match="reasons must be a list of str"):
        c.run_partial("r", 5)

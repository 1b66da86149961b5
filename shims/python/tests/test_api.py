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


def test_values_pack_as_the_client_library_packs_them() -> None:
    v = {"i": [0, 127, 128, 255, 256, 65535, 65536, 2**32, -1, -32, -33, -129, -32769,
               -2**31 - 1, 2**63 - 1, -2**63, 2**64 - 1],
         "f": [0.5, -0.0, 1e308], "s": ["", "a" * 31, "b" * 32, "c" * 256, "d" * 65536, "é"],
         "l": [list(range(15)), list(range(16)), list(range(65536))],
         "m": [{str(k): k for k in range(15)}, {str(k): k for k in range(16)}],
         "b": [True, False, None]}
    data = _native.to_msgpack(v)
    assert data[:1] == b"\x86"  # fixmap of 6
    assert _native.from_msgpack(data) == v
    for value, packed in [(127, b"\x7f"), (128, b"\xcc\x80"), (-33, b"\xd0\xdf"),
                          (2**64 - 1, b"\xcf" + b"\xff" * 8), ("a" * 32, b"\xd9\x20" + b"a" * 32),
                          (0.5, b"\xcb\x3f\xe0" + b"\x00" * 6), ([None] * 16, b"\xdc\x00\x10" + b"\xc0" * 16)]:
        assert _native.to_msgpack(value) == packed, value


def test_a_container_changed_while_converted_is_refused() -> None:
    box: dict = {"a": 1}

    class Grows:
        def to_dict(self) -> dict:
            box["later"] = 2
            return {"x": 1}

    box["g"] = Grows()
    with pytest.raises(RuntimeError, match=r"a 'dict' that changed size while it was converted at actual"):
        _native.to_msgpack(box, "actual")
    items = [1]

    class Shrinks:
        def to_dict(self) -> dict:
            items.clear()
            return {}

    items.append(Shrinks())
    items.append(3)
    with pytest.raises(RuntimeError, match=r"a 'list' that changed size"):
        _native.to_json(items, "actual")


def test_hostile_reply_values_are_refused() -> None:
    for data, what in [(b"\xc4\x01x", "bin, ext"), (b"\xc1", "never-used"), (b"\x81\x01\x02", "not a string"),
                       (b"\x82\xa1a\x01\xa1a\x02", "appears twice"), (b"\xa2\xff\xfe", "not valid UTF-8"),
                       (b"\x92\x01", "longer than its bytes"), (b"\x92\x01\xcd\x01", "cut short"),
                       (b"\x01\x02", "bytes after"),
                       (b"\xdd\xff\xff\xff\xff", "longer than its bytes"),
                       (b"\xcb\x7f\xf8" + b"\x00" * 6, "NaN"), (b"\x91" * 200 + b"\xc0", "too deep")]:
        with pytest.raises(ValueError, match=what):
            _native.from_msgpack(data)
    assert _native.from_msgpack(b"\xcf" + b"\xff" * 8) == 2**64 - 1
    assert _native.from_msgpack(b"\xd3\x80" + b"\x00" * 7) == -2**63
    assert _native.from_msgpack(b"\xca\x3f\x80\x00\x00") == 1.0


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

"""toolscored.snapshots as a drop-in for the reference's toolscore.snapshots:
the Snapshot dataclass, SnapshotStore (save, load, approve, delete, list,
pending) and snapshot_check, with the reference's return and exception
types, against the test daemon; hostile values and files; parallel writers.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import inspect
import json
import multiprocessing
import re
import warnings
from pathlib import Path
from typing import Any, List

import pytest

import toolscored
from toolscored import _native
from toolscored.snapshots import (SCHEMA_VERSION, Snapshot, SnapshotStore, _sanitize_name,
                                  snapshot_check)

CALLS = [{"tool": "search_flights", "args": {"destination": "NYC", "pax": 2, "fare": 99.5}}]
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$")


def entries(root: Path) -> List[str]:
    """The root's entries but the daemon's lock file (docs/security.md)."""
    return sorted(p.name for p in root.iterdir() if p.name != ".toolscored.lock")


def file_text(snap: Snapshot) -> str:
    """The bytes the reference writes for snap (json.dumps, indent 2)."""
    return json.dumps(snap.to_dict(), indent=2, ensure_ascii=False) + "\n"


# ---- Snapshot -------------------------------------------------------------

def test_snapshot_is_the_references_dataclass() -> None:
    assert [f.name for f in dataclasses.fields(Snapshot)] == [
        "name", "calls", "approved", "source", "created_at", "updated_at", "schema_version",
        "toolscore_version"]
    s = Snapshot("t")
    assert (s.calls, s.approved, s.source, s.schema_version) == ([], False, "pytest", 1)
    assert STAMP.match(s.created_at) and s.updated_at == s.created_at
    assert s.toolscore_version == toolscored.__version__ != ""
    assert Snapshot("u").calls is not s.calls  # each gets its own list
    given = Snapshot("t", [], True, "trace", "2020-01-01T00:00:00+00:00", "2021-01-01T00:00:00+00:00",
                     1, "9.9.9")
    assert (given.created_at, given.updated_at, given.toolscore_version, given.source) == (
        "2020-01-01T00:00:00+00:00", "2021-01-01T00:00:00+00:00", "9.9.9", "trace")
    # only created_at given: updated_at is the same instant
    assert Snapshot("t", created_at="2020-01-01T00:00:00+00:00").updated_at == \
        "2020-01-01T00:00:00+00:00"


def test_snapshot_dict_round_trip() -> None:
    s = Snapshot(name="tests/a.py::b[é]", calls=list(CALLS), approved=True, source="record")
    d = s.to_dict()
    assert list(d) == ["schema_version", "name", "created_at", "updated_at",
                       "toolscore_version", "approved", "source", "calls"]
    assert Snapshot.from_dict(d) == s
    json.dumps(d)
    # what a file may leave out gets the defaults; the name may not be left out
    bare = Snapshot.from_dict({"name": "n"})
    assert (bare.calls, bare.approved, bare.source, bare.schema_version) == ([], False, "pytest",
                                                                            SCHEMA_VERSION)
    with pytest.raises(KeyError):
        Snapshot.from_dict({"calls": []})


# ---- SnapshotStore: nothing made before the first write --------------------

def test_reading_an_absent_root_makes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "a" / "snaps"
    store = SnapshotStore(root)
    assert store.root == root
    assert store.list() == [] and store.pending() == [] and store.entries() == []
    assert store.load("x") is None and store.exists("x") is False
    assert store.delete("x") is None and store.problems() == []
    with pytest.raises(KeyError):
        store.approve("x")
    assert not (tmp_path / "a").exists()
    path = store.save(Snapshot("x"))
    assert path == store.path_for("x") and path.is_file()


def test_save_writes_the_references_bytes(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    snap = Snapshot(name="flows::é/b", calls=[
        {"tool": "t", "args": {"i": 1, "f": 1.0, "big": 2**63, "s": "a\"\\\n\x01/é😀",
                               "nested": {"z": [], "a": {}}, "none": None}},
        {"tool": "any", "args": None}], approved=True, created_at="2020-01-01T00:00:00+00:00")
    before = snap.updated_at
    path = store.save(snap)
    assert snap.updated_at != before and STAMP.match(snap.updated_at)  # refreshed, as saved
    assert snap.created_at == "2020-01-01T00:00:00+00:00"
    assert path.read_text(encoding="utf-8") == file_text(snap)
    assert store.load(snap.name) == snap
    # saved again as given: the file follows, even back to pending
    snap.approved = False
    store.save(snap)
    assert store.load(snap.name).approved is False
    assert entries(tmp_path) == [path.name]  # no temp file left


@pytest.mark.parametrize("bad, where", [
    (datetime.datetime(2020, 1, 1), "['when']"),
    (decimal.Decimal("1.5"), "['when']"),
    ({1, 2}, "['when']"),
    (b"bytes", "['when']"),
    (object(), "['when']"),
    ({1: "int key"}, "['when']"),
])
def test_save_refuses_values_that_are_not_json(tmp_path: Path, bad: Any, where: str) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    with pytest.raises(ValueError, match="JSON-serializable") as info:
        store.save(Snapshot("bad", [{"tool": "t", "args": {"when": bad}}]))
    e = info.value
    assert isinstance(e, TypeError) and isinstance(e, toolscored.NotJSONSerializableError)
    assert "'bad'" in str(e) and where in str(e)
    assert not (tmp_path / "snaps").exists()  # nothing written, not even the root


def test_failed_save_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    path = store.save(Snapshot("g", [{"tool": "t", "args": {"q": "y"}}], approved=True))
    before = path.read_bytes()
    cycle: List[Any] = []
    cycle.append(cycle)
    bad_calls = [
        [{"tool": "t", "args": {"d": datetime.date(2020, 1, 1)}}],  # not JSON
        [{"tool": "t", "args": {"x": float("nan")}}],                # not JSON either
        [{"tool": "t", "args": {"c": cycle}}],                       # a cycle
        [{"args": {}}],                                              # no tool
        [{"tool": "", "args": {}}],                                  # an empty tool
        [{"tool": "t", "args": [1]}],                                # args not an object
        "not a list",
        [5],
    ]
    for calls in bad_calls:
        with pytest.raises(ValueError):
            store.save(Snapshot("g", calls))  # type: ignore[arg-type]
    with pytest.raises(toolscored.InvalidSnapshotError, match=r"snapshot 'g': calls\[0\]"):
        store.save(Snapshot("g", [{"args": {}}]))
    with pytest.raises(ValueError, match="schema_version"):
        store.save(Snapshot("g", [], schema_version=2))
    with pytest.raises(ValueError, match="approved"):
        store.save(Snapshot("g", [], approved="yes"))  # type: ignore[arg-type]
    assert path.read_bytes() == before
    assert entries(tmp_path) == [path.name]


def test_save_hostile_names_and_arguments(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    with pytest.raises(TypeError, match="takes a Snapshot, not dict"):
        store.save({"name": "x", "calls": []})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="string \"name\""):
        store.save(Snapshot(5))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NUL"):
        store.save(Snapshot("a\0b"))
    with pytest.raises(ValueError, match="4096"):
        store.save(Snapshot("x" * 4097))
    for name in ("../../evil", "..\\..\\evil", "", "a/b/c", "x" * 300, "é" * 150, " . ",
                 'weird < > | * ? " chars', "line\nbreak"):
        path = store.save(Snapshot(name, [{"tool": "t", "args": {}}]))
        assert path.parent == tmp_path and path == store.path_for(name)
        assert store.load(name).name == name
    assert len(entries(tmp_path)) == 9


def test_a_root_that_is_a_file_is_an_os_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    store = SnapshotStore(tmp_path / "file")
    for call in (lambda: store.save(Snapshot("a")), store.list, lambda: store.load("a"),
                 lambda: snapshot_check("a", CALLS, store=store)):
        with pytest.raises(OSError, match="Not a directory") as info:
            call()
        assert isinstance(info.value, toolscored.StorageError) and info.value.code == "io"
        assert str(tmp_path / "file") in str(info.value)
    assert (tmp_path / "file").read_text() == "x"


# ---- names -------------------------------------------------------------------

@pytest.mark.parametrize("name", [
    "tests/test_agent.py::test_booking[NYC]", "a::b::c", "..x..", "...", "", " ", "\u2003tab\t",
    "é" * 120, "[x]<y>|z*?\"", "a\\b", "::", "x" * 100 + "::y",
])
def test_sanitize_name_is_the_file_names_stem(tmp_path: Path, name: str) -> None:
    file = _native.snapshot_filename(name)
    assert file == f"{_sanitize_name(name)[:100]}-{file[-13:-5]}.json"
    assert SnapshotStore(tmp_path).path_for(name).parent == tmp_path


# ---- load: broken files ---------------------------------------------------

@pytest.mark.parametrize("text", [b"{ not json", b"[1, 2, 3]", b'{"name": "b"}', b'"text"', b"",
                                  b'{"name": "b", "calls": {}}', b'{"name": 5, "calls": []}',
                                  b"\xff\xfe{}", b'{"name": "b", "calls": [], "approved": "no"}',
                                  b'{"name": "b", "calls": [{"args": {}}]}'])
def test_load_of_a_broken_file_is_a_value_error_naming_it(tmp_path: Path, text: bytes) -> None:
    store = SnapshotStore(tmp_path)
    path = store.path_for("b")
    path.write_bytes(text)
    with pytest.raises(ValueError) as info:
        store.load("b")
    assert isinstance(info.value, toolscored.InvalidSnapshotError)
    assert str(path) in str(info.value)
    assert store.exists("b")  # it is there, only broken
    assert store.list() == [] and [p["file"] for p in store.problems()] == [str(path)]


# ---- approve, delete, list --------------------------------------------------

def test_approve_returns_the_approved_snapshot(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    old = "2020-01-01T00:00:00+00:00"
    saved = Snapshot("t", list(CALLS), created_at=old)
    store.save(saved)
    snap = store.approve("t")
    assert isinstance(snap, Snapshot) and snap.approved is True and snap.calls == CALLS
    assert snap.created_at == old and snap.updated_at > saved.updated_at  # bumped
    assert store.load("t") == snap
    assert store.approve(name="t") == snap  # approved already: left as it is
    with pytest.raises(KeyError) as info:
        store.approve("nope")
    assert isinstance(info.value, toolscored.NotFoundError) and str(info.value).startswith("no ")


def test_approve_several_or_all(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    for n in ("c", "a", "b", "d"):
        store.save(Snapshot(n, [{"tool": n, "args": {}}]))
    with pytest.raises(toolscored.NotFoundError):
        store.approve("a", "missing")
    assert store.pending() == store.list()  # all of them or none
    got = store.approve("a", "b")
    assert [s.name for s in got] == ["a", "b"] and all(s.approved for s in got)
    assert [s.name for s in store.approve(all=True)] == ["c", "d"]
    assert store.approve(all=True) == [] and store.pending() == []
    with pytest.raises(TypeError, match="needs a name"):
        store.approve()
    with pytest.raises(TypeError, match="not both"):
        store.approve("a", all=True)
    with pytest.raises(TypeError, match="not a str"):
        store.approve("a", 5)  # type: ignore[arg-type]


def test_delete(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    path = store.save(Snapshot("t"))
    assert store.delete("t") == path and not store.exists("t")
    assert store.delete("t") is None
    with pytest.raises(KeyError):
        store.delete("t", missing_ok=False)


def test_list_is_sorted_full_and_skips_what_is_not_a_snapshot(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    for n, ok in (("charlie", True), ("alpha", False), ("é", False), ("bravo", True), ("Z", True)):
        store.save(Snapshot(n, [{"tool": n, "args": {"k": 1}}], approved=ok))
    (tmp_path / "garbage.json").write_text("nope")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "notes.txt").write_text("not json at all")
    snaps = store.list()
    assert [s.name for s in snaps] == ["Z", "alpha", "bravo", "charlie", "é"]  # code points
    assert snaps[1].calls == [{"tool": "alpha", "args": {"k": 1}}]
    assert [s.name for s in store.pending()] == ["alpha", "é"]
    assert [s.name for s in store.list(pending=True)] == ["alpha", "é"]
    assert sorted(Path(p["file"]).name for p in store.problems()) == ["garbage.json",
                                                                      "list.json"]
    assert [(e.name, e.calls) for e in store.entries()][:1] == [("Z", 1)]


def test_a_file_renamed_by_hand_is_not_listed_under_its_name(tmp_path: Path) -> None:
    """The daemon lists a file only under the name it hashes to (every listed
    snapshot loads by its name); the reference lists it anyway."""
    store = SnapshotStore(tmp_path)
    path = store.save(Snapshot("a", [{"tool": "t", "args": {}}]))
    path.rename(tmp_path / "copy.json")
    assert store.list() == [] and store.load("a") is None
    assert [Path(p["file"]).name for p in store.problems()] == ["copy.json"]


# ---- snapshot_check -----------------------------------------------------------

def test_snapshot_check_signature_and_defaults() -> None:
    params = inspect.signature(snapshot_check).parameters
    assert list(params)[:2] == ["name", "actual"]
    want = {"store": None, "update": False, "min_score": 1.0, "weights": None, "strict": False}
    for k, v in want.items():
        assert params[k].kind is inspect.Parameter.KEYWORD_ONLY and params[k].default == v, k


def test_states_warnings_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(toolscored.ToolScoreAssertionError, match="does not exist") as info:
        snapshot_check("x", CALLS, store=store)
    assert isinstance(info.value, toolscored.SnapshotMissingInCIError)
    assert not (tmp_path / "snaps").exists()  # CI never writes
    monkeypatch.delenv("CI")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert snapshot_check("x", CALLS, store=store) is None
    (w,) = caught
    assert issubclass(w.category, UserWarning) and "approve" in str(w.message)
    assert w.filename == __file__  # the warning points at the caller
    snap = store.load("x")
    assert snap.calls == CALLS and snap.approved is False and snap.source == "pytest"
    with pytest.warns(UserWarning, match="pending approval"):
        assert snapshot_check("x", CALLS, store=store) is None
    monkeypatch.setenv("CI", "0")  # any non-empty value is CI
    with pytest.raises(AssertionError, match="pending approval"):
        snapshot_check("x", CALLS, store=store)
    monkeypatch.delenv("CI")
    store.approve("x")
    monkeypatch.setenv("CI", "1")
    result = snapshot_check("x", CALLS, store=str(store.root))
    assert result.score == pytest.approx(1.0) and result.passed
    drift = [{"tool": "book_hotel", "args": {"city": "LA"}}]
    with pytest.raises(toolscored.ToolScoreAssertionError) as info:
        snapshot_check("x", drift, store=store)
    assert isinstance(info.value, toolscored.SnapshotMismatchError)
    assert info.value.result.score < 1.0
    monkeypatch.delenv("CI")
    with pytest.warns(UserWarning, match="updated"):
        assert snapshot_check("x", drift, store=store, update=True) is None
    assert store.load("x").calls == drift and store.load("x").approved


def test_update_is_off_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the reference: snapshot_check reads CI, never TOOLSCORE_RECORD_UPDATE
    (the fixture does); update=None asks for the environment's."""
    store = SnapshotStore(tmp_path)
    monkeypatch.setenv("TOOLSCORE_RECORD_UPDATE", "1")
    with pytest.warns(UserWarning, match="created"):
        snapshot_check("n", CALLS, store=store)
    assert store.load("n").approved is False
    with pytest.warns(UserWarning, match="updated"):
        snapshot_check("n", CALLS, store=store, update=None)
    assert store.load("n").approved is True


def test_snapshot_check_hostile_input(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    with pytest.raises(ValueError) as info:
        snapshot_check("n", [{"tool": "t", "args": {"d": datetime.date(2020, 1, 1)}}], store=store)
    assert isinstance(info.value, TypeError) and "actual[0]['args']['d']" in str(info.value)
    # no shape the extraction reads: a TypeError as the reference's, and a ValueError
    for actual, match in (({"weird": 1}, "auto-detect"), ("text", "auto-detect"),
                          ([1, 2], "format"), (None, "actual is None")):
        with pytest.raises(TypeError, match=match) as info:
            snapshot_check("n", actual, store=store)
        assert isinstance(info.value, toolscored.FormatError)
        assert isinstance(info.value, ValueError) and info.value.code == "format"
    # calls the reference would write and never read back are refused at once
    for actual in ([{"tool": 5}], [{"tool": "a", "args": [1]}]):
        with pytest.raises(toolscored.InvalidInputError, match=r"calls\[0\]"):
            snapshot_check("n", actual, store=store)
    with pytest.raises(ValueError, match="min_score"):
        snapshot_check("n", CALLS, store=store, min_score=1.5)
    with pytest.raises(TypeError):
        snapshot_check(5, CALLS, store=store)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        snapshot_check("n", CALLS, store=object())  # type: ignore[arg-type]
    assert store.list() == []


def test_the_old_exception_names_are_the_same_classes() -> None:
    pairs = [("DaemonUnavailable", "DaemonUnavailableError"), ("NotFound", "NotFoundError"),
             ("InvalidInput", "InvalidInputError"), ("SnapshotMismatch", "SnapshotMismatchError"),
             ("SnapshotMissingInCI", "SnapshotMissingInCIError"),
             ("SnapshotPendingInCI", "SnapshotPendingInCIError")]
    for old, new in pairs:
        assert getattr(toolscored, old) is getattr(toolscored, new)
        assert getattr(toolscored, new).__module__ == "toolscored"
    assert toolscored.ToolScoreAssertionError is toolscored.SnapshotError
    assert issubclass(toolscored.NotFoundError, KeyError)
    assert issubclass(toolscored.InvalidSnapshotError, ValueError)
    assert str(toolscored.NotFoundError("no snapshot named 'x'", "not_found")) == \
        "no snapshot named 'x'"


# ---- parallel writers ----------------------------------------------------------

PAD = "x" * 4000


def _writer(root: str, p: int) -> None:
    store = SnapshotStore(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(30):
            store.save(Snapshot("shared", [{"tool": "w", "args": {"p": p, "i": i, "pad": PAD}}],
                                approved=i % 2 == 0))
            snapshot_check(f"own-{p}-{i}", [{"tool": "t", "args": {"p": p}}], store=store)
            if i % 10 == 9:
                store.approve(all=True)


def test_parallel_saves_and_approvals_never_tear_a_file(tmp_path: Path) -> None:
    root = tmp_path / "snaps"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(root), p)) for p in range(4)]
    for proc in procs:
        proc.start()
    store = SnapshotStore(root)
    reads = 0
    while any(proc.is_alive() for proc in procs):
        snap = store.load("shared")  # every read is one whole write
        if snap is not None:
            (call,) = snap.calls
            assert call["args"]["pad"] == PAD and call["args"]["p"] in range(4)
            reads += 1
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    assert reads > 0
    files = entries(root)
    assert len(files) == 121 and all(f.endswith(".json") for f in files)  # no temp file left
    for f in files:
        json.loads((root / f).read_text(encoding="utf-8"))
    assert len(store.list()) == 121 and store.problems() == []

"""The toolscore_snapshot fixture end to end (pytester projects against a
real daemon): the record -> approve -> replay story, update, CI, names,
provider responses, and the files the plugin makes the daemon write."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from conftest import TSCTL_WORD, Project, summary_lines

CALLS = '[{"tool": "search_flights", "args": {"destination": "NYC"}}]'

BOOKING = f"""
def test_books_a_flight(toolscore_snapshot):
    result = toolscore_snapshot({CALLS})
    print("RESULT", None if result is None else (result.score, result.grade, result.passed))
"""


def test_first_run_creates_warns_and_summarizes(project: Project) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    r = project.run("-s")
    r.assert_outcomes(passed=1, warnings=1)
    r.stdout.fnmatch_lines([
        f"*SnapshotWarning: snapshot 'test_booking.py::test_books_a_flight' created: {project.root}/"
        "test_booking.py__test_books_a_flight-*.json - review it, then approve with "
        f"`{TSCTL_WORD} approve 'test_booking.py::test_books_a_flight'`*",
    ])
    assert "RESULT None" in r.stdout.str()
    assert summary_lines(r) == ["toolscore: 1 snapshot created (pending approval)"]
    files = project.files()
    snap = files["test_booking.py::test_books_a_flight"]
    assert snap["approved"] is False
    assert snap["source"] == "pytest"
    assert snap["calls"] == [{"tool": "search_flights", "args": {"destination": "NYC"}}]
    # A second run before approval: pending, a warning, still no evaluation.
    r = project.run("-s")
    r.assert_outcomes(passed=1, warnings=1)
    r.stdout.fnmatch_lines(["*snapshot 'test_booking.py::test_books_a_flight' pending approval"
                            f" - run `{TSCTL_WORD} approve 'test_booking.py::test_books_a_flight'`"
                            " to use it as a baseline*"])
    assert summary_lines(r) == ["toolscore: 1 pending"]


def test_approve_then_replay_returns_a_result(project: Project) -> None:
    project.pt.makepyfile(test_booking="""
        def test_books_a_flight(toolscore_snapshot):
            calls = [{"tool": "search_flights", "args": {"destination": "NYC"}},
                     {"tool": "book_flight", "args": {"flight_id": "FL-42"}}]
            result = toolscore_snapshot(calls)
            if result is not None:
                assert result.score > 0.999 and result.grade == "A" and result.passed
                assert result.selection_accuracy == 1.0 and result.argument_f1 == 1.0
                assert result.sequence_accuracy == 1.0 and result.redundant_rate == 0.0
                assert sorted(result.called_tools) == ["book_flight", "search_flights"]
                assert result.missing_tools == [] and result.total_calls == 2
                assert result.name == "test_booking.py::test_books_a_flight"
                print("REPLAYED", result.score)
    """)
    project.run().assert_outcomes(passed=1, warnings=1)
    project.approve_all()
    r = project.run("-s", "-W", "error::UserWarning")
    r.assert_outcomes(passed=1)
    assert "REPLAYED 0.9999999999999999" in r.stdout.str()
    assert summary_lines(r) == ["toolscore: 1 passed"]


def test_drift_fails_with_the_report(project: Project) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    project.run()
    project.approve_all()
    project.pt.makepyfile(test_booking=BOOKING.replace("NYC", "LA"))
    r = project.run()
    r.assert_outcomes(failed=1)
    out = r.stdout.str()
    r.stdout.fnmatch_lines([
        "E   *toolscored.SnapshotMismatchError: snapshot 'test_booking.py::test_books_a_flight' "
        "drifted from its approved baseline (score 0.70 < 1.00 required)",
        "E   *Expected vs Actual Tool Calls",
        "E   *search_flights(destination='NYC') | search_flights(destination='LA')*",
        "E   *score 0.70 < 1.00 required  ·  selection 1.00  ·  args 0.00  ·  sequence 1.00",
        "E   *calls[[]0] search_flights  args.destination: \"NYC\" → \"LA\"",
    ])
    # Raised, not an assert statement: no rewriting, no "where" lines, and
    # the plugin's own frames are hidden.
    assert "where" not in out and "assert " not in out
    assert "toolscored/plugin.py" not in out and "toolscored/api.py" not in out
    assert summary_lines(r) == ["toolscore: 1 failed"]
    # The baseline is untouched by a failed replay.
    assert project.files()["test_booking.py::test_books_a_flight"]["calls"][0]["args"] == {
        "destination": "NYC"}


def test_failure_is_an_assertion_error_with_the_result(project: Project) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    project.run()
    project.approve_all()
    project.pt.makepyfile(test_booking="""
        import pytest, toolscored
        def test_books_a_flight(toolscore_snapshot):
            with pytest.raises(AssertionError) as info:
                toolscore_snapshot([{"tool": "search_flights", "args": {"destination": "LA"}}])
            e = info.value
            assert isinstance(e, toolscored.SnapshotMismatchError)
            assert e.outcome == "FAILED" and e.file.endswith(".json")
            assert abs(e.result.score - 0.7) < 1e-9 and e.result.passed is False
            assert "Expected vs Actual Tool Calls" in str(e)
            # A lower threshold passes the same drift.
            n = "test_booking.py::test_books_a_flight"
            r = toolscore_snapshot([{"tool": "search_flights", "args": {"destination": "LA"}}],
                                   min_score=0.6, name=n)
            assert r is not None and r.passed and r.grade == "C"
            # Custom weights, strict comparison.
            r = toolscore_snapshot([{"tool": "search_flights", "args": {"destination": "LA"}}],
                                   weights={"argument_f1": 0.0}, name=n)
            assert r.score > 0.999
    """)
    r = project.run()
    r.assert_outcomes(passed=1)
    assert summary_lines(r) == ["toolscore: 2 passed, 1 failed"]


@pytest.mark.parametrize("how", ["option", "env"])
def test_update_rerecords_and_approves(project: Project, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    project.run()
    project.approve_all()
    project.pt.makepyfile(test_booking=BOOKING.replace("NYC", "LA"))
    if how == "option":
        r = project.run("-s", "--toolscore-update")
    else:
        monkeypatch.setenv("TOOLSCORE_RECORD_UPDATE", " Yes ")
        r = project.run("-s")
    r.assert_outcomes(passed=1, warnings=1)
    r.stdout.fnmatch_lines(["*snapshot 'test_booking.py::test_books_a_flight' updated "
                            "(calls overwritten and approved)*"])
    assert "RESULT None" in r.stdout.str()
    assert summary_lines(r) == ["toolscore: 1 updated"]
    snap = project.files()["test_booking.py::test_books_a_flight"]
    assert snap["approved"] is True
    assert snap["calls"][0]["args"] == {"destination": "LA"}
    monkeypatch.delenv("TOOLSCORE_RECORD_UPDATE", raising=False)
    project.run().assert_outcomes(passed=1)


def test_update_counts_unchanged_snapshots_as_unchanged(project: Project) -> None:
    project.pt.makepyfile(test_booking=BOOKING, test_other="""
        def test_other(toolscore_snapshot):
            toolscore_snapshot([{"tool": "weather", "args": {"city": "Oslo"}}])
    """)
    project.run()
    project.approve_all()
    before = {n: s["updated_at"] for n, s in project.files().items()}
    # one snapshot's calls change, the other's do not: no warning for it
    project.pt.makepyfile(test_booking=BOOKING.replace("NYC", "LA"))
    r = project.run("--toolscore-update")
    r.assert_outcomes(passed=2, warnings=1)
    r.stdout.fnmatch_lines(["*snapshot 'test_booking.py::test_books_a_flight' updated*"])
    assert "its calls are already the approved ones" not in r.stdout.str()
    assert summary_lines(r) == ["toolscore: 1 updated, 1 unchanged"]
    after = {n: s["updated_at"] for n, s in project.files().items()}
    assert after["test_other.py::test_other"] == before["test_other.py::test_other"]
    r = project.run("--toolscore-update", "-n", "2")
    r.assert_outcomes(passed=2)
    assert summary_lines(r) == ["toolscore: 2 unchanged"]


@pytest.mark.parametrize("value", ["0", "false", "NO", ""])
def test_update_env_false_values(project: Project, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    project.run()
    project.approve_all()
    project.pt.makepyfile(test_booking=BOOKING.replace("NYC", "LA"))
    monkeypatch.setenv("TOOLSCORE_RECORD_UPDATE", value)
    project.run().assert_outcomes(failed=1)


@pytest.mark.parametrize("ci", ["1", "0", "false"])
def test_ci_missing_fails_and_writes_nothing(project: Project, monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    monkeypatch.setenv("CI", ci)
    r = project.run()
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines([
        "E   *toolscored.SnapshotMissingInCIError: snapshot 'test_booking.py::test_books_a_flight' "
        "does not exist; snapshots cannot be created in CI. Run the test locally to record it, "
        f"then accept it with `{TSCTL_WORD} accept 'test_booking.py::test_books_a_flight'` (or review "
        f"everything with `{TSCTL_WORD} review`)."])
    assert not project.root.exists() or not list(project.root.iterdir())
    assert summary_lines(r) == ["toolscore: 1 failed"]


def test_ci_pending_fails_and_changes_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.pt.makepyfile(test_booking=BOOKING)
    project.run()
    before = {p.name: p.read_bytes() for p in project.root.iterdir()}
    monkeypatch.setenv("CI", "true")
    r = project.run()
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines([
        "E   *toolscored.SnapshotPendingInCIError: snapshot 'test_booking.py::test_books_a_flight' is "
        "pending approval; an unapproved snapshot cannot be used as a baseline in CI. Accept it "
        f"locally with `{TSCTL_WORD} accept 'test_booking.py::test_books_a_flight'` (or review "
        f"everything with `{TSCTL_WORD} review`)."])
    assert {p.name: p.read_bytes() for p in project.root.iterdir()} == before


def test_allow_pending_in_ci(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.pt.makepyfile(test_booking=BOOKING, test_other="""
        def test_other(toolscore_snapshot):
            toolscore_snapshot([{"tool": "x", "args": {}}])
    """)
    project.run("test_other.py")  # test_other pending from now on
    monkeypatch.setenv("CI", "1")
    r = project.run("--toolscore-allow-pending")
    r.assert_outcomes(passed=2, warnings=2)
    assert summary_lines(r) == ["toolscore: 1 snapshot created (pending approval), 1 pending"]
    assert set(project.files()) == {"test_booking.py::test_books_a_flight",
                                    "test_other.py::test_other"}
    # Approved snapshots are still evaluated, and drift still fails.
    project.approve_all()
    project.pt.makepyfile(test_booking=BOOKING.replace("NYC", "LA"))
    project.run("--toolscore-allow-pending").assert_outcomes(passed=1, failed=1)


def test_snapshot_dir_is_relative_to_rootdir(project: Project) -> None:
    sub = project.path / "tests" / "deep"
    sub.mkdir(parents=True)
    (sub / "test_booking.py").write_text(BOOKING)
    project.pt.chdir()
    import os
    os.chdir(sub)
    r = project.pt.runpytest_subprocess("--toolscore-snapshot-dir", "snaps/here", ".")
    r.assert_outcomes(passed=1, warnings=1)
    files = project.files(project.path / "snaps" / "here")
    assert list(files) == ["tests/deep/test_booking.py::test_books_a_flight"]
    assert not (sub / "snaps").exists() and not project.root.exists()
    # The default is .toolscore/snapshots of the rootdir, from anywhere below it.
    r = project.pt.runpytest_subprocess(".")
    assert list(project.files()) == ["tests/deep/test_booking.py::test_books_a_flight"]


def test_unnamed_calls_get_suffixes_and_name_overrides(project: Project) -> None:
    project.pt.makepyfile(test_names="""
        def test_two_flows(toolscore_snapshot):
            toolscore_snapshot([{"tool": "book", "args": {}}])
            toolscore_snapshot([{"tool": "cancel", "args": {}}])
            toolscore_snapshot([{"tool": "named", "args": {}}], name="my flow")
            toolscore_snapshot([{"tool": "refund", "args": {}}])

        import pytest
        @pytest.mark.parametrize("city", ["NYC", "a/b [c]"])
        def test_param(toolscore_snapshot, city):
            toolscore_snapshot([{"tool": "search", "args": {"q": city}}])
    """)
    r = project.run()
    r.assert_outcomes(passed=3, warnings=6)
    files = project.files()
    assert set(files) == {
        "test_names.py::test_two_flows", "test_names.py::test_two_flows-2",
        "test_names.py::test_two_flows-3", "my flow",
        "test_names.py::test_param[NYC]", "test_names.py::test_param[a/b [c]]",
    }
    assert files["test_names.py::test_two_flows-2"]["calls"][0]["tool"] == "cancel"
    assert files["test_names.py::test_two_flows-3"]["calls"][0]["tool"] == "refund"
    for name, snap in files.items():  # snapshots.md's file name rule
        stem = re.sub(r'[/\\:\[\]<>|*?"\s]', "__", name.replace("::", "__")).strip(".")
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        assert snap["_file"] == f"{stem[:100] or 'snapshot'}-{digest}.json"
    # Replays use the same names: nothing new is created.
    project.approve_all()
    r = project.run()
    r.assert_outcomes(passed=3)
    assert summary_lines(r) == ["toolscore: 6 passed"]


OPENAI = {
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {
                "name": "search_flights", "arguments": "{\"destination\": \"NYC\", \"seats\": 2}"}},
            {"id": "call_2", "type": "function", "function": {
                "name": "book_flight", "arguments": "{\"flight_id\": \"FL-42\"}"}}]}}],
}
ANTHROPIC = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
    "stop_reason": "tool_use",
    "content": [
        {"type": "text", "text": "Let me search."},
        {"type": "tool_use", "id": "toolu_1", "name": "search_flights",
         "input": {"destination": "NYC", "seats": 2}},
        {"type": "tool_use", "id": "toolu_2", "name": "book_flight",
         "input": {"flight_id": "FL-42"}}],
}


def test_raw_provider_responses(project: Project) -> None:
    project.pt.makepyfile(test_providers=f"""
        import copy
        OPENAI = {OPENAI!r}
        ANTHROPIC = {ANTHROPIC!r}

        class SdkObject:
            # What the SDKs return: a pydantic v2 model.
            def __init__(self, data): self._data = data
            def model_dump(self, mode="python"):
                assert mode == "json"
                return copy.deepcopy(self._data)

        def test_openai(toolscore_snapshot):
            toolscore_snapshot(OPENAI)
            toolscore_snapshot(SdkObject(OPENAI))
            toolscore_snapshot(OPENAI, format="openai")

        def test_anthropic(toolscore_snapshot):
            toolscore_snapshot(ANTHROPIC)
            toolscore_snapshot(SdkObject(ANTHROPIC))
    """)
    r = project.run()
    r.assert_outcomes(passed=2, warnings=5)
    want = [{"tool": "search_flights", "args": {"destination": "NYC", "seats": 2}},
            {"tool": "book_flight", "args": {"flight_id": "FL-42"}}]
    files = project.files()
    assert len(files) == 5
    for snap in files.values():
        assert snap["calls"] == want
    project.approve_all()
    project.run().assert_outcomes(passed=2)


def test_wrong_format_is_a_clear_error(project: Project) -> None:
    project.pt.makepyfile(test_fmt=f"""
        import pytest, toolscored
        def test_fmt(toolscore_snapshot):
            with pytest.raises(ValueError) as e:
                toolscore_snapshot({ANTHROPIC!r}, format="openai")
            assert isinstance(e.value, toolscored.InvalidInputError)
            with pytest.raises(ValueError, match="min_score"):
                toolscore_snapshot([], min_score=2.0)
            with pytest.raises(ValueError, match="rules: unknown key 'ignroe'") as e:
                toolscore_snapshot([], rules={{"ignroe": ["*.args.id"]}})
            assert isinstance(e.value, toolscored.InvalidInputError)
            with pytest.raises(TypeError, match="rules must be a dict"):
                toolscore_snapshot([], rules=["*.args.id"])
    """)
    project.run().assert_outcomes(passed=1)


def test_rules_argument_and_project_rules(project: Project) -> None:
    """rules= (docs/rules.md) merged over .toolscore/config.json: volatile ids
    ignored, parallel calls compared without order, secrets never written."""
    project.pt.makepyfile(test_rules='''
        from pathlib import Path
        def round_():
            return Path("round.txt").read_text().strip()
        def calls():
            n = round_()
            out = [{"tool": "search", "args": {"q": "paris", "request_id": "r" + n}},
                   {"tool": "search", "args": {"q": "rome", "request_id": "r" + n}}]
            return out if n == "1" else out[::-1]
        def test_parallel(toolscore_snapshot):
            toolscore_snapshot(calls(), rules={"order": "unordered"})
        def test_plain(toolscore_snapshot):
            toolscore_snapshot([{"tool": "login", "args": {"api_key": "sk-" + round_()}}])
    ''')
    (project.path / ".toolscore").mkdir(exist_ok=True)
    (project.path / ".toolscore" / "config.json").write_text(
        '{"ignore": ["*.args.request_id"], "redact": ["*.args.api_key"]}')
    (project.path / "round.txt").write_text("1")
    project.run().assert_outcomes(passed=2, warnings=2)
    files = project.files()
    assert files["test_rules.py::test_plain"]["calls"] == [
        {"tool": "login", "args": {"api_key": "[redacted]"}}]
    project.approve_all()
    (project.path / "round.txt").write_text("2")
    project.run().assert_outcomes(passed=2)
    # without the project's ignore rule the request ids differ
    (project.path / ".toolscore" / "config.json").write_text('{"redact": ["*.args.api_key"]}')
    r = project.run()
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["*order by rules: unordered*"])


def test_files_are_byte_identical_to_the_reference(project: Project) -> None:
    """tests/data/compat holds a file the reference tool wrote; the plugin,
    for the same test and calls, writes the same bytes (timestamps and
    version aside) under the same file name."""
    ref_file = (Path(__file__).resolve().parents[3] / "tests" / "data" / "compat"
                / "tests__test_flights.py__test_books_a_flight-a17e174d.json")
    ref = ref_file.read_bytes()
    (project.path / "tests").mkdir()
    (project.path / "tests" / "test_flights.py").write_text("""
def test_books_a_flight(toolscore_snapshot):
    toolscore_snapshot([{"tool": "search_flights", "args": {"destination": "NYC"}},
                        {"tool": "book_flight", "args": {"flight_id": "FL-42"}}])
""")
    project.run().assert_outcomes(passed=1)
    project.approve_all()
    ours = (project.root / ref_file.name).read_bytes()
    keep = (b'"created_at"', b'"updated_at"', b'"toolscore_version"')
    ref_lines = ref.split(b"\n")
    our_lines = ours.split(b"\n")
    assert len(our_lines) == len(ref_lines)
    for a, b in zip(our_lines, ref_lines):
        if not a.strip().startswith(keep):
            assert a == b
    # And any value round-trips as Python's json.dumps writes it.
    project.pt.makepyfile(test_values="""
        def test_values(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {
                "f": [1.0, 0.1, 1e-07, 1e16, -0.0, 2.5e-308], "i": [0, -1, 2**63 - 1, 2**64 - 1],
                "s": "é\\u2028\\n\\t\\"/\\\\\\u0001 ☃ 😀", "e": {}, "l": [], "n": None, "b": True,
                "order": {"z": 1, "a": 2}}}])
    """)
    project.run("test_values.py").assert_outcomes(passed=1)
    f = next(project.root.glob("test_values.py__test_values-*.json"))
    raw = f.read_bytes()
    assert raw == (json.dumps(json.loads(raw), indent=2, ensure_ascii=False) + "\n").encode()
    args = json.loads(raw)["calls"][0]["args"]
    assert list(args["order"]) == ["z", "a"]
    assert args["i"][3] == 2**64 - 1 and args["f"][1] == 0.1


@pytest.mark.parametrize("workers", ["0", "2"])
def test_junitxml_properties(project: Project, workers: str) -> None:
    import xml.etree.ElementTree as ET
    project.pt.makepyfile(test_booking=BOOKING, test_two="""
        def test_two(toolscore_snapshot):
            toolscore_snapshot([{"tool": "a", "args": {}}])
            toolscore_snapshot([{"tool": "b", "args": {}}], name="second")
    """)
    project.run("test_two.py")
    project.approve_all()
    r = project.run("--junitxml=out.xml", "-n", workers)
    r.assert_outcomes(passed=2, warnings=1)
    cases = {c.get("name"): c for c in ET.parse(project.path / "out.xml").iter("testcase")}
    props = {n: [(p.get("name"), p.get("value")) for p in c.iter("property")]
             for n, c in cases.items()}
    assert props["test_books_a_flight"] == [
        ("toolscore.name", "test_booking.py::test_books_a_flight"),
        ("toolscore.outcome", "CREATED")]
    assert props["test_two"] == [
        ("toolscore.name", "test_two.py::test_two"), ("toolscore.outcome", "PASSED"),
        ("toolscore.score", "1.0000"),
        ("toolscore.name", "second"), ("toolscore.outcome", "PASSED"),
        ("toolscore.score", "1.0000")]

"""Hostile and broken situations: values that are not JSON, a daemon that
cannot be reached, one killed, stopped or restarted mid-session, a test that forks,
threads sharing the connection, and the reference's plugin installed too."""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from conftest import DAEMON, TSCTL, WAIT_GONE, WAIT_SECONDS, Daemon, Project, summary_lines


def test_values_that_are_not_json_raise_naming_them(project: Project) -> None:
    project.pt.makepyfile(test_bad="""
        import math, socket, pytest

        def check(snap, value, exc, *words):
            with pytest.raises(exc) as info:
                snap([{"tool": "t", "args": {"v": value}}])
            for w in words:
                assert w in str(info.value), (w, str(info.value))

        def test_socket(toolscore_snapshot):
            s = socket.socket()
            check(toolscore_snapshot, [1, s], TypeError, "'socket'", "actual[0]['args']['v'][1]")
            s.close()

        def test_set(toolscore_snapshot):
            check(toolscore_snapshot, {1, 2}, TypeError, "'set'", "actual[0]['args']['v']")

        def test_nan(toolscore_snapshot):
            check(toolscore_snapshot, math.nan, ValueError, "nan", "actual[0]['args']['v']")
            check(toolscore_snapshot, -math.inf, ValueError, "-inf", "['v']")

        def test_cycle(toolscore_snapshot):
            d = {"a": 1}
            d["self"] = d
            check(toolscore_snapshot, d, ValueError, "cyclic", "actual[0]['args']['v']['self']")
            l = []
            l.append(l)
            check(toolscore_snapshot, l, ValueError, "cyclic", "['v'][0]")

        def test_huge_int(toolscore_snapshot):
            check(toolscore_snapshot, 10**30, ValueError, "1000000000000000000000000000000",
                  "out of range", "['v']")
            check(toolscore_snapshot, -2**63 - 1, ValueError, "out of range")
            check(toolscore_snapshot, 10**5000, ValueError, "bits", "out of range")

        def test_others(toolscore_snapshot):
            check(toolscore_snapshot, b"x", TypeError, "'bytes'")
            check(toolscore_snapshot, "\\ud800", ValueError, "surrogate")
            with pytest.raises(TypeError, match="dict key of type 'int'"):
                toolscore_snapshot([{"tool": "t", "args": {1: 2}}])
            with pytest.raises(ValueError, match="deeper than"):
                v = []
                for _ in range(500):
                    v = [v]
                toolscore_snapshot(v)
            with pytest.raises(ValueError, match="actual is None"):
                toolscore_snapshot(None)
            with pytest.raises(TypeError, match="weights"):
                toolscore_snapshot([], weights=[1])

        def test_slow_path_errors(toolscore_snapshot):
            class Broken:
                def model_dump(self, mode):
                    raise RuntimeError("cannot dump")
            with pytest.raises(RuntimeError, match="cannot dump") as info:
                toolscore_snapshot({"x": [Broken()]})
            # where it happened: a PEP 678 note, on Pythons that have them (3.11+)
            if hasattr(info.value, "add_note"):
                assert "actual['x'][0]" in "".join(info.value.__notes__)
            class Loop:
                def to_dict(self):
                    return {"me": self}
            check(toolscore_snapshot, Loop(), ValueError, "cyclic")

        def test_nothing_was_written(toolscore_snapshot):
            import os
            assert not os.path.exists(".toolscore")
    """)
    r = project.run()
    r.assert_outcomes(passed=8)
    assert summary_lines(r) == []


def test_sdk_objects_are_converted(project: Project) -> None:
    project.pt.makepyfile(test_sdk="""
        import dataclasses, enum, collections

        class Mode(str, enum.Enum):
            FAST = "fast"

        class V1Model:                   # pydantic v1
            def dict(self): return {"tool": "v1", "args": {"mode": Mode.FAST}}

        class JsonDict:                  # google-genai
            def to_json_dict(self): return {"tool": "genai", "args": {}}

        class ToDict:
            def to_dict(self): return {"tool": "todict", "args": {"n": 1}}

        @dataclasses.dataclass
        class Call:
            tool: str
            args: dict

        Point = collections.namedtuple("Point", "x y")

        def test_sdk(toolscore_snapshot):
            toolscore_snapshot([V1Model(), JsonDict(), ToDict(), Call("dc", {"p": Point(1, 2)})])
    """)
    project.run().assert_outcomes(passed=1, warnings=1)
    (snap,) = project.files().values()
    assert snap["calls"] == [{"tool": "v1", "args": {"mode": "fast"}},
                             {"tool": "genai", "args": {}},
                             {"tool": "todict", "args": {"n": 1}},
                             {"tool": "dc", "args": {"p": [1, 2]}}]


def test_real_pydantic_models(project: Project) -> None:
    """Debian's pydantic (v1: dict()) models as an SDK would return them."""
    project.pt.makepyfile(test_pyd="""
        from typing import List, Optional
        import pydantic

        class Function(pydantic.BaseModel):
            name: str
            arguments: str

        class ToolCall(pydantic.BaseModel):
            id: str
            type: str = "function"
            function: Function

        class Message(pydantic.BaseModel):
            role: str
            content: Optional[str] = None
            tool_calls: List[ToolCall]

        def test_pyd(toolscore_snapshot):
            msg = Message(role="assistant", tool_calls=[ToolCall(id="c1", function=Function(
                name="search_flights", arguments='{"destination": "NYC"}'))])
            toolscore_snapshot({"choices": [{"message": msg}]})
    """)
    r = project.run()
    r.assert_outcomes(passed=1, warnings=1)
    (snap,) = project.files().values()
    assert snap["calls"] == [{"tool": "search_flights", "args": {"destination": "NYC"}}]


def test_unreachable_daemon_is_a_test_error_naming_the_socket(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sock = str(tmp_path / "nowhere" / "toolscored.sock")
    monkeypatch.setenv("TOOLSCORE_SOCKET", sock)
    project.pt.makepyfile(test_a="""
        def test_a(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_plain():
            pass
    """)
    for args in ((), ("-n", "2")):
        r = project.run(*args)
        r.assert_outcomes(errors=1, passed=1)
        out = r.stdout.str()
        assert sock in out
        assert "toolscored.DaemonUnavailableError: " in out
        r.stdout.fnmatch_lines(["*ERROR*test_a.py::test_a*"])


def test_daemon_killed_mid_session(project: Project, own_daemon: Daemon,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCORE_SOCKET", own_daemon.socket)
    monkeypatch.setenv("TSPY_DAEMON_PID", str(own_daemon.pid))
    project.pt.makepyfile(test_kill=WAIT_GONE + textwrap.dedent("""
        import os, signal
        def test_1_before(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_2_kill():
            pid = int(os.environ["TSPY_DAEMON_PID"])
            os.kill(pid, signal.SIGKILL)
            wait_gone(pid)
        def test_3_after(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
    """))
    r = project.run()
    r.assert_outcomes(passed=2, errors=1)
    r.stdout.fnmatch_lines(["*ERROR*test_kill.py::test_3_after*"])
    assert own_daemon.socket in r.stdout.str()
    own_daemon.proc.wait()


def test_daemon_stopped_mid_session_is_a_test_error_not_a_hang(
        project: Project, own_daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon that stops answering (SIGSTOP) fails the check at its
    deadline (TOOLSCORE_TIMEOUT, 2 s here) with an error naming the daemon
    and what to do; the other tests run and the session ends."""
    monkeypatch.setenv("TOOLSCORE_SOCKET", own_daemon.socket)
    monkeypatch.setenv("TSPY_DAEMON_PID", str(own_daemon.pid))
    monkeypatch.setenv("TOOLSCORE_TIMEOUT", "2")
    project.pt.makepyfile(test_stop="""
        import os, signal
        def test_1_before(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_2_stop():
            os.kill(int(os.environ["TSPY_DAEMON_PID"]), signal.SIGSTOP)
        def test_3_after(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_4_plain():
            pass
    """)
    try:
        start = time.monotonic()
        r = project.run()
        took = time.monotonic() - start
    finally:
        os.kill(own_daemon.pid, signal.SIGCONT)
    r.assert_outcomes(passed=3, errors=1)
    r.stdout.fnmatch_lines(["*ERROR*test_stop.py::test_3_after*"])
    out = r.stdout.str()
    assert f"pid {own_daemon.pid}, socket {own_daemon.socket}" in out
    assert "did not answer check within 2 s" in out
    assert "TOOLSCORE_TIMEOUT" in out
    # the check's deadline, then closing the run's: seconds, not a hang
    assert took < WAIT_SECONDS * 3


def test_daemon_restarted_mid_session(project: Project, own_daemon: Daemon,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The next check reaches the new daemon (started by the client
    library), which read the run back from its state directory: one
    summary line counts the checks before and after the restart."""
    monkeypatch.setenv("TOOLSCORE_SOCKET", own_daemon.socket)
    monkeypatch.setenv("TSPY_DAEMON_PID", str(own_daemon.pid))
    monkeypatch.setenv("TOOLSCORED", str(DAEMON))
    project.pt.makepyfile(test_restart=WAIT_GONE + textwrap.dedent("""
        import os, signal
        def test_1_before(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_2_stop():
            pid = int(os.environ["TSPY_DAEMON_PID"])
            os.kill(pid, signal.SIGTERM)
            wait_gone(pid)
        def test_3_after(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
            toolscore_snapshot([{"tool": "u", "args": {}}])
    """))
    r = project.run()
    r.assert_outcomes(passed=3, warnings=3)
    assert summary_lines(r) == ["toolscore: 3 snapshots created (pending approval)"]
    assert set(project.files()) == {"test_restart.py::test_1_before",
                                    "test_restart.py::test_3_after",
                                    "test_restart.py::test_3_after-2"}
    own_daemon.proc.wait()


def test_a_test_that_forks(project: Project) -> None:
    project.pt.makepyfile(test_fork="""
        import os
        def test_fork(toolscore_snapshot):
            toolscore_snapshot([{"tool": "parent", "args": {"n": 1}}])
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    toolscore_snapshot([{"tool": "child", "args": {}}], name="from-child")
                    code = 0
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            toolscore_snapshot([{"tool": "parent", "args": {"n": 2}}])
    """)
    r = project.run()
    r.assert_outcomes(passed=1)
    assert set(project.files()) == {"test_fork.py::test_fork", "test_fork.py::test_fork-2",
                                    "from-child"}
    # The child's check was counted in the parent's run too.
    assert summary_lines(r) == ["toolscore: 3 snapshots created (pending approval)"]


def test_threads_share_the_connection(project: Project) -> None:
    project.pt.makepyfile(test_threads="""
        import threading
        def test_threads(toolscore_snapshot):
            errors = []
            def work(k):
                try:
                    for i in range(20):
                        toolscore_snapshot([{"tool": "t", "args": {"k": k, "i": i}}],
                                           name=f"thread-{k}-{i}")
                except BaseException as e:
                    errors.append(e)
            ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
            [t.start() for t in ts]
            [t.join() for t in ts]
            assert not errors
    """)
    r = project.run("-p", "no:warnings")
    r.assert_outcomes(passed=1)
    assert len(project.files()) == 80
    assert summary_lines(r) == ["toolscore: 80 snapshots created (pending approval)"]


def test_reference_plugin_is_detected(project: Project, monkeypatch: pytest.MonkeyPatch,
                                      tmp_path: Path) -> None:
    """A stand-in for the reference package (its distribution name, a pytest11
    entry point, the same fixture and options): a clear usage error instead
    of argparse's conflict, and either plugin can be switched off."""
    site = tmp_path / "refsite"
    (site / "toolscore").mkdir(parents=True)
    (site / "toolscore" / "__init__.py").write_text("")
    (site / "toolscore" / "pytest_plugin.py").write_text(textwrap.dedent("""
        import pytest
        def pytest_addoption(parser):
            parser.addoption("--toolscore-update", action="store_true")
        @pytest.fixture
        def toolscore_snapshot():
            return lambda actual, **kw: "reference"
    """))
    # the reference's distribution is tool-scorer; its package and plugin, toolscore
    dist = site / "tool_scorer-1.10.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tool-scorer\nVersion: 1.10.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\ntoolscore = toolscore.pytest_plugin\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), str(site)) if p))
    project.pt.makepyfile(test_which="""
        def test_which(toolscore_snapshot):
            print("WHICH", toolscore_snapshot([{"tool": "t", "args": {}}]))
    """)
    r = project.run()
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    err = r.stderr.str()
    assert "reference tool's pytest plugin" in err and "-p no:toolscore" in err
    assert "Traceback" not in err and "conflicting option" not in err
    r = project.run("-p", "no:toolscore", "-s")
    r.assert_outcomes(passed=1, warnings=1)
    r = project.run("-p", "no:toolscored", "-s")
    r.assert_outcomes(passed=1)
    assert "WHICH reference" in r.stdout.str()


def test_after_a_first_failure_checks_fail_at_once_until_a_daemon_answers(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The daemon cannot be started: the first check tries (and says why),
    every later one fails at once with the same reason, starting nothing;
    a daemon that comes back mid-session is used again."""
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    sock = str(run_dir / "toolscored.sock")
    starts = tmp_path / "starts"
    fake = tmp_path / "fake-toolscored"
    fake.write_text(f"#!/bin/sh\necho start >>'{starts}'\necho 'cannot open the store' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TOOLSCORE_SOCKET", sock)
    monkeypatch.setenv("TOOLSCORED", str(fake))
    monkeypatch.setenv("TSPY_REAL_DAEMON", str(DAEMON))
    project.pt.makepyfile(test_many="""
        import pytest
        @pytest.mark.parametrize("i", range(30))
        def test_check(toolscore_snapshot, i):
            toolscore_snapshot([{"tool": "t", "args": {"i": i}}])
    """)
    for args in ((), ("-n", "2")):
        starts.unlink(missing_ok=True)
        r = project.run(*args)
        r.assert_outcomes(errors=30)
        # one start attempt for the whole session, its reason in every error
        assert starts.read_text().count("start") == 1, args
        out = r.stdout.str()
        assert out.count("cannot open the store") >= 30
        assert out.count("the later ones fail at once") >= 29
    # a daemon that comes back is used again: the tenth test starts one by hand
    project.pt.makepyfile(test_many=WAIT_GONE + textwrap.dedent("""
        import os, subprocess, time, pytest
        @pytest.mark.parametrize("i", range(20))
        def test_check(toolscore_snapshot, i):
            if i == 10:
                subprocess.Popen([os.environ["TSPY_REAL_DAEMON"], "--socket",
                                  os.environ["TOOLSCORE_SOCKET"], "--log-level", "warn"])
                end = time.monotonic() + 20
                while not os.path.exists(os.environ["TOOLSCORE_SOCKET"]):
                    assert time.monotonic() < end, "the daemon did not start"
                    time.sleep(0.01)
            toolscore_snapshot([{"tool": "t", "args": {"i": i}}])
    """))
    starts.unlink(missing_ok=True)
    try:
        r = project.run()
        r.assert_outcomes(errors=10, passed=10)
        assert starts.read_text().count("start") == 1
        assert len(project.files()) == 10
    finally:
        subprocess.run([str(TSCTL), "--socket", sock, "stop"], capture_output=True)


def test_errors_of_checks_count_in_the_summary(project: Project) -> None:
    """A check the daemon refused (no format found in the response) never
    reaches the run; the session's summary still counts it, as pytest
    counts the test, also across xdist workers."""
    project.pt.makepyfile(test_mixed="""
        import pytest
        @pytest.mark.parametrize("i", range(3))
        def test_ok(toolscore_snapshot, i):
            toolscore_snapshot([{"tool": "t", "args": {"i": i}}])
        def test_no_format(toolscore_snapshot):
            toolscore_snapshot({"weird": 1})
    """)
    r = project.run()
    r.assert_outcomes(passed=3, failed=1)
    assert summary_lines(r) == ["toolscore: 3 snapshots created (pending approval), 1 error"]
    project.approve_all()
    r = project.run("-n", "2")
    r.assert_outcomes(passed=3, failed=1)
    assert summary_lines(r) == ["toolscore: 3 passed, 1 error"]
    project.pt.makepyfile(test_mixed="""
        def test_no_format(toolscore_snapshot):
            toolscore_snapshot({"weird": 1})
        def test_none(toolscore_snapshot):
            toolscore_snapshot(None)
    """)
    r = project.run()
    r.assert_outcomes(failed=2)
    assert summary_lines(r) == ["toolscore: 2 errors"]


def test_a_mistyped_socket_says_what_happened(project: Project, daemon: Daemon,
                                              monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    """TOOLSCORE_SOCKET names no daemon: one is started there, but the store
    belongs to the daemon on the right socket, which answers; the one
    started is stopped and the session says so."""
    project.pt.makepyfile(test_a="""
        def test_a(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
    """)
    project.run().assert_outcomes(passed=1)  # the store is the fixture daemon's now
    typo_dir = tmp_path / "typo"
    typo_dir.mkdir(mode=0o700)
    typo = typo_dir / "toolscored.sock"
    monkeypatch.setenv("TOOLSCORE_SOCKET", str(typo))
    monkeypatch.setenv("TOOLSCORED", str(DAEMON))
    r = project.run()
    r.assert_outcomes(passed=1, warnings=1)
    assert summary_lines(r)[-1] == (
        f"toolscore: note: no daemon answered at {typo}, so one was started there; but the "
        f"store is served by the daemon at {daemon.socket}, which answered instead, and the one "
        "started was stopped (a mistyped TOOLSCORE_SOCKET?)")
    end = time.monotonic() + 20
    while typo.exists():
        assert time.monotonic() < end, "the daemon started on the mistyped socket still runs"
        time.sleep(0.01)
    # under xdist the workers go where the controller's run is: one summary
    r = project.run("-n", "2")
    r.assert_outcomes(passed=1, warnings=1)
    lines = summary_lines(r)
    assert lines[0] == "toolscore: 1 pending", lines
    assert "a mistyped TOOLSCORE_SOCKET" in lines[-1]

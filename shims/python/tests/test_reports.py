"""The run's report files (--toolscore-junit, --toolscore-json-report,
--toolscore-html, docs/pytest.md "Report files"): written by the controller
after the run is closed, under -n 0 and -n 2, valid (JUnit against
tests/data/junit.xsd), relative to the invocation directory; a path that
cannot be written is a usage error before any test runs; a daemon gone at
the end is an error line and a failed session, with no stale file left;
a run joined from tsctl run is reported as it stands. Also the drift
report's width and JSON diff as sent with every check."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import TSCTL, TSCTL_WORD, WAIT_GONE, Project, summary_lines

XSD = Path(__file__).resolve().parents[3] / "tests" / "data" / "junit.xsd"

TESTS = """
def test_book(toolscore_snapshot):
    toolscore_snapshot([{"tool": "book", "args": {"to": "NYC"}}])
def test_search(toolscore_snapshot):
    toolscore_snapshot([{"tool": "search", "args": {"q": "<flights & trains>"}}])
def test_plain():
    pass
"""


def _xmllint(path: Path) -> None:
    if shutil.which("xmllint") is None:
        pytest.fail("xmllint is needed (libxml2-utils, scripts/deps.sh test)")
    r = subprocess.run(["xmllint", "--noout", "--schema", str(XSD), str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _report_args(d: Path) -> list:
    return ["--toolscore-junit", str(d / "out" / "r.xml"),
            "--toolscore-json-report", str(d / "out" / "r.json"),
            "--toolscore-html", str(d / "out" / "r.html")]


def _assert_html(path: Path, *names: str) -> None:
    page = path.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")
    for n in names:
        assert n in page, n
    # Self-contained: nothing is loaded from the network.
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_report_is_written_and_valid(project: Project, workers: str) -> None:
    project.pt.makepyfile(test_r=TESTS)
    d = project.path
    r = project.run("-n", workers, *_report_args(d))
    r.assert_outcomes(passed=3, warnings=2)
    assert r.ret == 0
    _xmllint(d / "out" / "r.xml")
    xml = (d / "out" / "r.xml").read_text(encoding="utf-8")
    assert xml.count("<testcase") == 2 and xml.count("<skipped") == 2
    rep = json.loads((d / "out" / "r.json").read_text(encoding="utf-8"))
    assert rep["format"] == "toolscore-run-report"
    assert rep["complete"] is True
    assert rep["counts"]["created"] == 2 and rep["counts"]["checks"] == 2
    assert sorted(c["name"] for c in rep["checks"]) == ["test_r.py::test_book",
                                                        "test_r.py::test_search"]
    _assert_html(d / "out" / "r.html", "test_r.py::test_book", "test_r.py::test_search")
    # Nothing but the reports (no temporary file) is left in their directory.
    assert sorted(p.name for p in (d / "out").iterdir()) == ["r.html", "r.json", "r.xml"]
    # A drift: the JUnit file has the failure with its report.
    project.approve_all()
    project.pt.makepyfile(test_r=TESTS.replace('"NYC"', '"LAX"'))
    r = project.run("-n", workers, *_report_args(d))
    r.assert_outcomes(passed=2, failed=1)
    _xmllint(d / "out" / "r.xml")
    xml = (d / "out" / "r.xml").read_text(encoding="utf-8")
    assert xml.count("<failure") == 1 and "LAX" in xml
    rep = json.loads((d / "out" / "r.json").read_text(encoding="utf-8"))
    assert rep["counts"]["passed"] == 1 and rep["counts"]["failed"] == 1


def test_paths_are_relative_to_the_invocation_directory(project: Project) -> None:
    project.pt.makepyfile(test_r=TESTS)
    sub = project.path / "sub"
    sub.mkdir()
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(project.path), "--toolscore-junit", "reports/j.xml"],
                       cwd=sub, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    _xmllint(sub / "reports" / "j.xml")


def test_a_session_checking_nothing_still_writes_them(project: Project) -> None:
    project.pt.makepyfile(test_r="def test_plain():\n    pass\n")
    r = project.run(*_report_args(project.path))
    r.assert_outcomes(passed=1)
    _xmllint(project.path / "out" / "r.xml")
    rep = json.loads((project.path / "out" / "r.json").read_text(encoding="utf-8"))
    assert rep["counts"]["checks"] == 0 and rep["checks"] == []


@pytest.mark.parametrize("option", ["--toolscore-junit", "--toolscore-json-report",
                                    "--toolscore-html"])
def test_an_unwritable_path_is_a_usage_error_before_the_tests(project: Project,
                                                             option: str) -> None:
    project.pt.makepyfile(test_r=TESTS)
    (project.path / "afile").write_text("x")
    for target, why in ((project.path / "afile" / "r.out", f"{project.path / 'afile'} is not "
                         "a directory"),
                        (project.path, "it is a directory")):
        r = project.run(option, str(target))
        assert r.ret == pytest.ExitCode.USAGE_ERROR
        err = r.stderr.str()
        assert f"{option} {target}: cannot write the report there: {why}" in err, err
        assert "passed" not in r.stdout.str()
    assert project.files() == {}


def test_a_daemon_gone_at_the_end_is_an_error_and_a_failed_session(
        project: Project, own_daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCORE_SOCKET", own_daemon.socket)
    monkeypatch.setenv("TSPY_DAEMON_PID", str(own_daemon.pid))
    out = project.path / "r.xml"
    out.write_text("<stale/>")
    project.pt.makepyfile(test_r=WAIT_GONE + textwrap.dedent("""
        import os, signal
        def test_1(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}])
        def test_2_stop():
            pid = int(os.environ["TSPY_DAEMON_PID"])
            os.kill(pid, signal.SIGTERM)
            wait_gone(pid)
    """))
    r = project.run("--toolscore-junit", str(out))
    r.assert_outcomes(passed=2, warnings=1)
    lines = summary_lines(r)
    assert any(line.startswith(f"toolscore: error: --toolscore-junit {out} was not written: ")
               and own_daemon.socket in line for line in lines), r.stdout.str()
    assert r.ret == 1
    assert not out.exists()  # never the previous session's report
    own_daemon.proc.wait()


def test_a_run_joined_from_tsctl_run_is_reported_as_it_stands(project: Project,
                                                              daemon) -> None:
    project.pt.makepyfile(test_r=TESTS)
    d = project.path
    cmd = [str(TSCTL), "--socket", daemon.socket, "run", "--dir", str(project.root),
           "--junit", str(d / "tsctl.xml"), "--", sys.executable, "-m", "pytest", "-q",
           "-p", "no:cacheprovider", "-n", "2", *_report_args(d)]
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    _xmllint(d / "out" / "r.xml")
    _xmllint(d / "tsctl.xml")
    rep = json.loads((d / "out" / "r.json").read_text(encoding="utf-8"))
    assert rep["counts"]["created"] == 2
    # The run was open when pytest wrote it; tsctl run closed it after.
    assert rep["runs"][0]["closed"] is None
    assert (d / "out" / "r.xml").read_text().count("<testcase") == \
        (d / "tsctl.xml").read_text().count("<testcase") == 2


DRIFT = """
def test_wide(toolscore_snapshot):
    toolscore_snapshot([{"tool": "search", "args": {"query": "%s"}}])
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_drift_report_width_and_json_diff(project: Project, monkeypatch: pytest.MonkeyPatch,
                                          workers: str) -> None:
    long_a = " ".join(["alpha"] * 40)
    long_b = " ".join(["omega"] * 40)
    project.pt.makepyfile(test_w=DRIFT % long_a)
    project.run().assert_outcomes(passed=1, warnings=1)
    project.approve_all()
    project.pt.makepyfile(test_w=DRIFT % long_b)

    def report_lines(r: pytest.RunResult) -> list:
        out = r.stdout.lines
        start = next(i for i, line in enumerate(out) if "Expected vs Actual" in line)
        end = next(i for i in range(start, len(out)) if out[i].startswith("test_w.py:")
                   or out[i].startswith("=") or out[i].startswith("[gw"))
        # pytest's own prefix of an exception's lines: "E" and 7 spaces
        return [line[8:] if line.startswith("E       ") else line for line in out[start:end]]

    for width in (50, 140):
        monkeypatch.setenv("TOOLSCORE_REPORT_WIDTH", str(width))
        r = project.run("-n", workers)
        r.assert_outcomes(failed=1)
        lines = report_lines(r)
        # the commands that end it are never cut (one word each: a venv's
        # tsctl by its path may pass the width, docs/snapshots.md)
        steps = lines.index("To accept the observed calls:")
        assert lines[steps + 1].startswith(f"  {TSCTL_WORD} accept "), lines[steps:]
        widest = max(len(line.rstrip()) for line in lines[:steps])
        assert widest <= width, (width, widest, lines)
        assert any(line.startswith("@@ ") for line in lines), lines  # the JSON diff
        if width == 140:
            assert widest > 100, lines  # wider than the daemon's default
    monkeypatch.setenv("TOOLSCORE_NO_JSON_DIFF", "1")
    monkeypatch.setenv("TOOLSCORE_REPORT_WIDTH", "100")
    r = project.run("-n", workers)
    r.assert_outcomes(failed=1)
    lines = report_lines(r)
    assert any(line.startswith("Expected vs Actual") for line in lines)
    assert not any(line.startswith("@@ ") for line in lines), lines

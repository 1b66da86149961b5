"""Runs and xdist: one run per session, opened by the controller, joined by
every worker; one summary line from the daemon, right under -n 0, -n 2,
-n auto and with 200 tests under -n 4; duplicate claims across workers;
joining a run opened by tsctl run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import TSCTL, Project, summary_lines


def many_tests(project: Project, n: int, drifted: int = -1) -> None:
    body = ["import pytest", "@pytest.mark.parametrize('i', range(%d))" % n,
            "def test_flow(toolscore_snapshot, i):",
            "    tool = 'changed' if i == %d else 'step'" % drifted,
            "    toolscore_snapshot([{'tool': tool, 'args': {'i': i}}])",
            "    toolscore_snapshot([{'tool': 'again', 'args': {'i': i}}])"]
    project.pt.makepyfile(test_many="\n".join(body))


@pytest.mark.parametrize("workers", ["0", "2", "auto"])
def test_one_summary_line_for_all_workers(project: Project, workers: str) -> None:
    many_tests(project, 12)
    r = project.run("-n", workers)
    r.assert_outcomes(passed=12, warnings=24)
    assert summary_lines(r) == ["toolscore: 24 snapshots created (pending approval)"]
    names = set(project.files())
    assert names == {f"test_many.py::test_flow[{i}]" for i in range(12)} | {
        f"test_many.py::test_flow[{i}]-2" for i in range(12)}
    project.approve_all()
    r = project.run("-n", workers)
    r.assert_outcomes(passed=12)
    assert summary_lines(r) == ["toolscore: 24 passed"]


def test_200_tests_under_4_workers(project: Project) -> None:
    many_tests(project, 200)
    r = project.run("-n", "4", "-p", "no:warnings")
    r.assert_outcomes(passed=200)
    assert summary_lines(r) == ["toolscore: 400 snapshots created (pending approval)"]
    assert len(project.files()) == 400
    project.approve_all()
    many_tests(project, 200, drifted=7)
    r = project.run("-n", "4", "-p", "no:warnings")
    r.assert_outcomes(passed=199, failed=1)
    assert summary_lines(r) == ["toolscore: 398 passed, 1 failed"]
    r.stdout.fnmatch_lines(["*FAILED test_many.py::test_flow?7?*"])


def test_duplicate_claims_across_workers(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.pt.makepyfile(test_a="""
        def test_a(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}], name="shared")
    """, test_b="""
        def test_b(toolscore_snapshot):
            toolscore_snapshot([{"tool": "t", "args": {}}], name="shared")
    """)
    r = project.run("-n", "2")
    r.assert_outcomes(passed=2, warnings=2)
    lines = summary_lines(r)
    assert lines[0] == "toolscore: 1 snapshot created (pending approval), 1 pending"
    assert lines[1] in ("toolscore: error: snapshot 'shared' was claimed by more than one test: "
                        f"{a}, {b}" for a, b in (("test_a.py::test_a", "test_b.py::test_b"),
                                                 ("test_b.py::test_b", "test_a.py::test_a")))
    assert r.ret == 0  # locally a warning line; in CI a failure
    project.approve_all()
    monkeypatch.setenv("CI", "1")
    r = project.run("-n", "2")
    r.assert_outcomes(passed=2)
    assert "was claimed by more than one test" in r.stdout.str()
    assert r.ret == 1


def test_joins_a_run_opened_by_tsctl_run(project: Project, daemon) -> None:
    many_tests(project, 3)
    cmd = [str(TSCTL), "--socket", daemon.socket, "run", "--dir", str(project.root), "--",
           sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"]
    p = subprocess.run(cmd, cwd=project.path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [line for line in p.stdout.splitlines() if line.startswith("toolscore:")]
    # Printed once, by tsctl run, which owns the run; pytest only joined it.
    assert lines == ["toolscore: 6 snapshots created (pending approval)"], p.stdout
    assert len(project.files()) == 6

"""--toolscore-orphans: unused snapshots after a complete run; skipped with
a note after a partial one; snapshots of tests that did not pass are kept."""

from __future__ import annotations

import pytest

from conftest import Project, summary_lines

TESTS = """
import pytest
def test_a(toolscore_snapshot):
    toolscore_snapshot([{"tool": "a", "args": {}}])
def test_b(toolscore_snapshot):
    toolscore_snapshot([{"tool": "b", "args": {}}])
@pytest.mark.slow
def test_c(toolscore_snapshot):
    toolscore_snapshot([{"tool": "c", "args": {}}])
"""


@pytest.fixture
def recorded(project: Project) -> Project:
    """Three snapshots, approved; then test_b is gone from the suite."""
    project.pt.makeini("[pytest]\nmarkers = slow\n")
    project.pt.makepyfile(test_o=TESTS)
    project.run().assert_outcomes(passed=3, warnings=3)
    project.approve_all()
    project.pt.makepyfile(test_o=TESTS.replace("def test_b", "def _gone_b"))
    return project


def test_warn_lists_unused(recorded: Project) -> None:
    r = recorded.run("--toolscore-orphans=warn")
    r.assert_outcomes(passed=2)
    assert summary_lines(r) == ["toolscore: 2 passed",
                                "toolscore: 1 unused snapshot(s) (no test checked them):"]
    r.stdout.fnmatch_lines(["  test_o.py::test_b"])
    assert r.ret == 0


def test_fail_fails_the_session(recorded: Project) -> None:
    r = recorded.run("--toolscore-orphans=fail", "-n", "2")
    r.assert_outcomes(passed=2)
    r.stdout.fnmatch_lines(["toolscore: 1 unused snapshot(s) (no test checked them):",
                            "  test_o.py::test_b"])
    assert r.ret == 1


def test_delete_removes_them(recorded: Project) -> None:
    r = recorded.run("--toolscore-orphans=delete")
    r.stdout.fnmatch_lines(["toolscore: deleted 1 unused snapshot(s):", "  test_o.py::test_b"])
    assert set(recorded.files()) == {"test_o.py::test_a", "test_o.py::test_c"}
    assert r.ret == 0


@pytest.mark.parametrize("args", [("-k", "test_a"), ("-m", "not slow"), ("test_o.py::test_a",),
                                  ("--deselect", "test_o.py::test_c"), ("-n", "2", "-k", "a")])
def test_partial_runs_skip_with_a_note(recorded: Project, args) -> None:
    r = recorded.run("--toolscore-orphans=delete", *args)
    assert r.ret == 0
    notes = [line for line in summary_lines(r) if "skipped" in line]
    assert len(notes) == 1 and "the run is partial" in notes[0], r.stdout.str()
    assert len(recorded.files()) == 3


def test_last_failed_is_partial(recorded: Project) -> None:
    recorded.pt.makepyfile(test_o=TESTS.replace("def test_b", "def _gone_b").replace(
        '"a", "args": {}', '"a", "args": {"x": 1}'))
    recorded.pt.runpytest_subprocess()  # test_a fails: --lf selects it
    r = recorded.pt.runpytest_subprocess("--lf", "--toolscore-orphans=delete")
    assert "the run is partial (--lf" in r.stdout.str()
    assert len(recorded.files()) == 3


def test_collection_errors_are_partial(recorded: Project) -> None:
    recorded.pt.makepyfile(test_broken="import no_such_module_here")
    r = recorded.run("--toolscore-orphans=delete", "--continue-on-collection-errors")
    assert "the run is partial" in r.stdout.str() and "collection errors" in r.stdout.str()
    assert len(recorded.files()) == 3


def test_snapshots_of_tests_that_did_not_pass_are_kept(recorded: Project) -> None:
    recorded.pt.makepyfile(test_o=TESTS.replace("def test_b", "def _gone_b").replace(
        "def test_c(toolscore_snapshot):\n", "def test_c(toolscore_snapshot):\n"
        "    raise RuntimeError('agent crashed first')\n"))
    r = recorded.run("--toolscore-orphans=delete")
    r.assert_outcomes(passed=1, failed=1)
    # test_b is gone, test_c did not reach its check: neither is deleted
    # while a test failed.
    r.stdout.fnmatch_lines(["toolscore: not deleting 1 unused snapshot(s): 1 test(s) did not "
                            "pass*"])
    assert "test_o.py::test_c" not in [ln.strip() for ln in r.outlines]
    assert len(recorded.files()) == 3


def test_a_suite_with_no_check_left(recorded: Project) -> None:
    recorded.pt.makepyfile(test_o="def test_plain():\n    pass\n")
    r = recorded.run("--toolscore-orphans=warn")
    r.assert_outcomes(passed=1)
    r.stdout.fnmatch_lines(["toolscore: 3 unused snapshot(s) (no test checked them):"])

"""A session says where it looked: the header names the store it checks
against (and why that one), CREATED names the file it wrote, and a second
store made above or below an existing one of the repository is warned about
once, naming both (pytest's rootdir rule is kept: a session run from
tests/ without an ini file uses tests/.toolscore/snapshots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project, summary_lines

TEST = """
def test_books(toolscore_snapshot):
    toolscore_snapshot([{"tool": "book", "args": {"to": "NYC"}}])
"""


def header(r: pytest.RunResult) -> list:
    return [line for line in r.outlines if line.startswith("toolscore: snapshots in ")]


def test_the_header_names_the_store(project: Project) -> None:
    project.pt.makepyfile(test_a=TEST)
    r = project.run()
    assert header(r) == [f"toolscore: snapshots in {project.root} "
                         "(.toolscore/snapshots of the rootdir; not created yet)"]
    r.stdout.fnmatch_lines([f"*snapshot 'test_a.py::test_books' created: {project.root}/"
                            "test_a.py__test_books-*.json - review it*"])
    r = project.run()
    assert header(r) == [f"toolscore: snapshots in {project.root} (.toolscore/snapshots of the rootdir)"]
    other = project.path / "elsewhere"
    r = project.run(f"--toolscore-snapshot-dir={other}")
    assert header(r) == [f"toolscore: snapshots in {other} (--toolscore-snapshot-dir; not created yet)"]


def test_a_second_store_of_the_repository_is_named_once(project: Project,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (project.path / ".git").mkdir()
    (project.path / "tox.ini").unlink()  # no ini file: the rootdir is where pytest runs
    tests = project.path / "tests"
    tests.mkdir()
    (tests / "test_a.py").write_text(TEST)
    project.run().assert_outcomes(passed=1)
    project.approve_all()
    # from tests/: pytest's rootdir is tests/, so is the store; the session
    # says which, and the check that makes it names the repository's other
    monkeypatch.chdir(tests)
    r = project.run()
    second = tests / ".toolscore" / "snapshots"
    assert header(r) == [f"toolscore: snapshots in {second} "
                         "(.toolscore/snapshots of the rootdir; not created yet)"]
    r.stdout.fnmatch_lines([f"*SnapshotWarning: snapshot 'test_a.py::test_books' created: {second}/*"
                            f"; warning: this made a second snapshot store in the repository, "
                            f"{second}, beside {project.root}"])
    assert summary_lines(r) == ["toolscore: 1 snapshot created (pending approval)"]
    r = project.run()
    assert "second snapshot store" not in r.stdout.str()
    # one more, given: the repository's store is above it
    monkeypatch.chdir(project.path)
    third = project.path / "sub" / ".toolscore" / "snapshots"
    r = project.run(f"--toolscore-snapshot-dir={third}", "tests")
    r.stdout.fnmatch_lines([f"*; warning: this made a second snapshot store in the repository, "
                            f"{third}, beside {project.root}"])
    # the repository's own made again, above the two others: both named
    Path(project.root).rename(project.path / "old")
    r = project.run("tests")
    r.stdout.fnmatch_lines([f"*; warning: this made a second snapshot store in the repository, "
                            f"{project.root}, beside {project.path}/sub/.toolscore/snapshots, "
                            f"{second}"])

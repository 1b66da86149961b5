"""What a failing check tells its reader to do next: the failure names the
snapshot and ends with the command that accepts it and the one that reviews
everything, and that command, pasted into an interactive bash or zsh, does
exactly what it says whatever the name holds."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import TSCTL, Project, summary_lines

HOSTILE = "weather > out.txt; it's $HOME `id` [Oslo] !! * ✈"

TEST = """
import os, pytest

CALLS = [{"tool": "weather", "args": {"city": os.environ.get("CITY", "Oslo")}}]

@pytest.mark.parametrize("city", ["Oslo"])
def test_weather(toolscore_snapshot, city):
    toolscore_snapshot(CALLS)

def test_named(toolscore_snapshot):
    toolscore_snapshot(CALLS, name=%r)
""" % HOSTILE


def accept_commands(lines: List[str]) -> List[str]:
    """The commands printed under "To accept the observed calls:", as a
    person copies them (pytest's "E" prefix left out)."""
    out = []
    for i, line in enumerate(lines[:-1]):
        if line.rstrip().endswith("To accept the observed calls:"):
            nxt = lines[i + 1]
            out.append(nxt[nxt.index("tsctl "):])
    return out


def paste(shell: str, line: str, tmp: Path, store: Path) -> None:
    """line typed into an interactive shell in an empty directory; fails
    when the shell fails or leaves a file there."""
    where = tmp / f"paste-{shell}"
    home = tmp / f"home-{shell}"
    where.mkdir(parents=True)
    home.mkdir(parents=True)
    (home / ".zshrc").write_text("")
    env = dict(os.environ, HOME=str(home), HISTFILE="/dev/null", TOOLSCORE_DIR=str(store),
               PATH=f"{TSCTL.parent}:{os.environ['PATH']}")
    r = subprocess.run([shell, "-i"], input=line + "\n", text=True, cwd=where, env=env,
                       capture_output=True)
    assert r.returncode == 0, f"{shell}: {line}\n{r.stdout}\n{r.stderr}"
    assert list(where.iterdir()) == [], f"{shell} made files pasting {line}"


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_a_failure_ends_with_commands_that_paste(project: Project, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 shell: str) -> None:
    assert shutil.which(shell), f"{shell} is missing (scripts/deps.sh test installs it)"
    project.pt.makepyfile(test_agent=TEST)
    project.run()
    project.approve_all()
    monkeypatch.setenv("CITY", "Bergen")
    r = project.run()
    r.assert_outcomes(failed=2)
    text = r.stdout.str()
    # named in the failure's first line, before the report
    for name in ("test_agent.py::test_weather[Oslo]", HOSTILE):
        first = text.index(f"SnapshotMismatchError: snapshot '{name}' drifted")
        assert first < text.index("Expected vs Actual Tool Calls", first)
    assert text.count("To review everything:") == 2
    assert [line.split("E", 1)[1].strip() for line in r.outlines
            if line.endswith("  tsctl review")] == ["tsctl review"] * 2
    commands = accept_commands(r.outlines)
    assert commands == ["tsctl accept 'test_agent.py::test_weather[Oslo]'",
                        "tsctl accept 'weather > out.txt; it'\\''s $HOME `id` [Oslo] !! * ✈'"]
    for i, line in enumerate(commands):
        paste(shell, line, tmp_path / str(i), project.root)
    files = project.files()
    assert sorted(files) == sorted(["test_agent.py::test_weather[Oslo]", HOSTILE])
    for snap in files.values():
        assert snap["approved"] is True
        assert snap["calls"] == [{"tool": "weather", "args": {"city": "Bergen"}}]
    # accepted: the same run passes now
    r = project.run()
    r.assert_outcomes(passed=2)
    assert summary_lines(r) == ["toolscore: 2 passed"]

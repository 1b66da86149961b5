"""What a failing check tells its reader to do next: the failure names the
snapshot and ends with the command that accepts it and the one that reviews
everything, and that command, pasted into an interactive bash or zsh, does
exactly what it says whatever the name holds."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import TSCTL, TSCTL_WORD, Daemon, Project, summary_lines
from toolscored import _native, _package

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
            assert nxt.startswith("E "), nxt
            out.append(nxt[1:].strip())
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
    assert [line[1:].strip() for line in r.outlines
            if line.endswith(f"  {TSCTL_WORD} review")] == [f"{TSCTL_WORD} review"] * 2
    commands = accept_commands(r.outlines)
    assert commands == [f"{TSCTL_WORD} accept 'test_agent.py::test_weather[Oslo]'",
                        f"{TSCTL_WORD} accept 'weather > out.txt; it'\\''s $HOME `id` [Oslo] !! * ✈'"]
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


def _fake_install(tmp: Path, monkeypatch: pytest.MonkeyPatch, scripts: bool = True) -> Path:
    """A site directory holding a toolscored distribution whose RECORD lists
    its console script tsctl in ``tmp/my venv/bin`` (as pip writes it, up
    from site-packages) beside the package's own bin/tsctl; the package is
    made to be the one in that site. The console script's path."""
    site = tmp / "my venv" / "lib" / "site-packages"
    (site / "toolscored" / "bin").mkdir(parents=True)
    info = site / "toolscored-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toolscored\nVersion: 1.0\n")
    record = ["toolscored/__init__.py,,", "toolscored/bin/tsctl,,"]
    if scripts:
        record.append("../../bin/tsctl,,")
    (info / "RECORD").write_text("\n".join(record) + "\n")
    script = tmp / "my venv" / "bin" / "tsctl"
    script.parent.mkdir(parents=True)
    script.symlink_to(TSCTL)
    monkeypatch.setattr(_package, "PACKAGE_DIR", str(site / "toolscored"))
    return script


def test_the_printed_tsctl_is_the_venvs_when_path_has_not_it(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    script = _fake_install(tmp_path, monkeypatch)
    assert _package.console_script("tsctl") == str(script)
    # a venv that is not activated: its console script, quoted for a shell
    assert _package.tsctl_command(path="/usr/bin:/bin") == shlex.quote(str(script))
    assert _package.tsctl_command(path="/usr/bin:/bin").startswith("'")  # "my venv"
    # activated: tsctl is that script
    assert _package.tsctl_command(path=f"{script.parent}:/usr/bin") is None
    # another tsctl first on PATH (another install): this package's, by its path
    other = tmp_path / "other"
    other.mkdir()
    (other / "tsctl").write_text("#!/bin/sh\n")
    (other / "tsctl").chmod(0o755)
    assert _package.tsctl_command(path=f"{other}:{script.parent}") == shlex.quote(str(script))


def test_without_a_console_script_the_printed_tsctl_is_tsctl(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_install(tmp_path, monkeypatch, scripts=False)  # as make install lays it out
    assert _package.console_script("tsctl") is None
    assert _package.tsctl_command(path="/usr/bin:/bin") is None


def test_a_clients_tsctl_starts_the_printed_commands_that_paste(daemon: Daemon,
                                                                tmp_path: Path) -> None:
    """A client made with tsctl=... (the venv's console script, as
    api.client() makes it when PATH has not that tsctl): the warning and the
    failure name that command, which pasted into bash with no tsctl on PATH
    accepts the drift."""
    venv_bin = tmp_path / "my venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "tsctl").symlink_to(TSCTL)
    word = shlex.quote(str(venv_bin / "tsctl"))
    store = str(tmp_path / "store")
    c = _native.Client(daemon.socket, autostart=False, tsctl=word)
    r = c.check(store, "it's [x]", [{"tool": "a", "args": {"q": 1}}])
    assert r["outcome"] == "CREATED"
    assert r["message"].endswith(f"then approve with `{word} approve 'it'\\''s [x]'`")
    assert c.approve(store, ["it's [x]"])
    r = c.check(store, "it's [x]", [{"tool": "a", "args": {"q": 2}}])
    assert r["outcome"] == "FAILED"
    lines = r["report"].splitlines()
    assert lines[-4:] == ["To accept the observed calls:", f"  {word} accept 'it'\\''s [x]'",
                          "To review everything:", f"  {word} review"]
    env = dict(os.environ, PATH="/usr/bin:/bin", TOOLSCORE_DIR=store)
    assert shutil.which("tsctl", path=env["PATH"]) is None
    done = subprocess.run(["bash", "-c", lines[-3].strip()], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert c.check(store, "it's [x]", [{"tool": "a", "args": {"q": 2}}])["outcome"] == "PASSED"
    # text that would not show as itself is refused, not printed
    with pytest.raises(Exception, match="'tsctl' must be the command that runs tsctl"):
        _native.Client(daemon.socket, autostart=False, tsctl="tsctl\x1b[2J").check(
            store, "y", [{"tool": "a", "args": {}}])

"""Fixtures of the toolscored package's own tests (tests/test_python.sh runs
them): a real toolscored on a private socket, and pytester projects whose
inner pytest loads the plugin through its pytest11 entry point, exactly as
an installed package is loaded.

TS_BUILD_DIR names the build whose daemon, tsctl and python/ site are
tested (build/ or build-asan/). Without it the installed package is tested
(tests/test_dist_python.sh, in a virtualenv): its own bin/toolscored and
bin/tsctl. TSPY_SERVED_LOG names a file that gets the executable of every
daemon the fixtures start, read from /proc (also from xdist workers).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from toolscored import _native, _package

pytest_plugins = ["pytester"]

# The differential tests against the reference tool (compat/) run under
# tests/test_python_compat.sh, in a venv where the reference is installed.
collect_ignore = [] if os.environ.get("TSPY_COMPAT") else ["compat"]

if os.environ.get("TS_BUILD_DIR"):
    DAEMON = Path(os.environ["TS_BUILD_DIR"]) / "toolscored"
    TSCTL = Path(os.environ["TS_BUILD_DIR"]) / "tsctl"
else:
    DAEMON = Path(_package.BIN_DIR) / "toolscored"
    TSCTL = Path(_package.BIN_DIR) / "tsctl"

# How the commands the checks print start: "tsctl" in the build tree (no
# console script) and in an activated venv, else the venv's console script
# (an installed package run from a venv that is not activated, as
# tests/test_dist_wheel.sh runs this suite).
TSCTL_WORD = _package.tsctl_command() or "tsctl"


# How long a test waits for a condition (a daemon answering, a process
# gone): only a test whose condition never comes reaches it; on a loaded
# machine the condition comes late and the test waits for it.
WAIT_SECONDS = 20

# Prepended to an inner test file that signals the daemon: wait_gone(pid)
# returns once the process has exited (a zombie counts: the outer pytest,
# its parent, collects it later) and fails after WAIT_SECONDS.
WAIT_GONE = textwrap.dedent(f"""\
    import time as _time

    def wait_gone(pid):
        end = _time.monotonic() + {WAIT_SECONDS}
        while _time.monotonic() < end:
            try:
                with open(f"/proc/{{pid}}/stat") as stat:
                    if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                        return
            except FileNotFoundError:
                return
            _time.sleep(0.01)
        raise AssertionError(f"process {{pid}} still running {WAIT_SECONDS} s after the signal")

    """)


class Daemon:
    """One toolscored in the foreground on a socket in a 0700 directory."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.socket = str(directory / "toolscored.sock")
        self.log = directory / "daemon.log"
        self.proc: Optional[subprocess.Popen] = None

    def start(self) -> "Daemon":
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(DAEMON), "--socket", self.socket, "--foreground", "--log-level", "warn"],
                stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        client = _native.Client(self.socket, autostart=False, connect_timeout_ms=100)
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                client.ping()
                if os.environ.get("TSPY_SERVED_LOG"):
                    with open(os.environ["TSPY_SERVED_LOG"], "a") as f:
                        f.write(os.path.realpath(f"/proc/{self.proc.pid}/exe") + "\n")
                return self
            except Exception:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"toolscored exited: {self.log.read_text()}")
                time.sleep(0.01)
        raise RuntimeError(f"toolscored did not answer on {self.socket} within {WAIT_SECONDS} s")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def _private_dir(prefix: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix=prefix))
    d.chmod(0o700)
    return d


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    d = _private_dir("tspy-daemon-")
    dm = Daemon(d).start()
    yield dm
    dm.stop()
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def own_daemon() -> Iterator[Daemon]:
    """A daemon for one test (one that kills or restarts it)."""
    d = _private_dir("tspy-own-")
    dm = Daemon(d).start()
    yield dm
    dm.stop()
    # A daemon started by a client library on this socket (autostart).
    try:
        pid = _native.Client(dm.socket, autostart=False, connect_timeout_ms=100).status()["pid"]
        os.kill(pid, signal.SIGTERM)
    except Exception:
        pass
    shutil.rmtree(d, ignore_errors=True)


# (COLUMNS and LINES: xdist workers set them, and the drift report's width
# follows COLUMNS; these tests may run under xdist themselves)
_ENV_CLEARED = ("CI", "TOOLSCORE_RUN", "TOOLSCORE_RECORD_UPDATE", "TOOLSCORE_RECORD",
                "TOOLSCORE_DIR", "TOOLSCORE_TEST", "PYTEST_ADDOPTS", "NO_COLOR",
                "PY_COLORS", "FORCE_COLOR", "PYTEST_XDIST_AUTO_NUM_WORKERS", "COLUMNS",
                "LINES")


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, daemon: Daemon) -> None:
    for k in _ENV_CLEARED:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("TOOLSCORE_SOCKET", daemon.socket)
    # Never start a daemon elsewhere by accident: a test that wants
    # autostart sets TOOLSCORED itself.
    monkeypatch.setenv("TOOLSCORED", "/bin/false")


class Project:
    """A pytester project with helpers for its snapshot store."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pt = pytester
        self.path: Path = pytester.path
        pytester.makeini("[pytest]\n")

    @property
    def root(self) -> Path:
        return self.path / ".toolscore" / "snapshots"

    def files(self, root: Optional[Path] = None) -> Dict[str, Dict[str, Any]]:
        """name -> parsed snapshot file, of every snapshot in root."""
        root = root or self.root
        out = {}
        if root.is_dir():
            for f in sorted(root.glob("*.json")):
                data = json.loads(f.read_text(encoding="utf-8"))
                data["_file"] = f.name
                out[data["name"]] = data
        return out

    def approve_all(self, root: Optional[Path] = None) -> None:
        subprocess.run([str(TSCTL), "approve", "--all", "--dir", str(root or self.root)],
                       check=True, stdout=subprocess.DEVNULL)

    def run(self, *args: str, subprocess_: bool = True) -> pytest.RunResult:
        if subprocess_:
            return self.pt.runpytest_subprocess(*args)
        return self.pt.runpytest(*args)


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


def summary_lines(result: pytest.RunResult) -> List[str]:
    """The toolscore lines of a run's output after its header (which says
    where the snapshots are, test_where.py)."""
    return [line for line in result.outlines
            if line.startswith("toolscore:") and not line.startswith("toolscore: snapshots in ")]

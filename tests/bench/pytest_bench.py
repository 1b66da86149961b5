"""The pytest plugin's cost per check (make bench, part "python").

One suite of N tests, each checking the same 10 calls (a JSON file) under
the fixture name toolscore_snapshot, run in these forms:

- noop:   the fixture does nothing (the plugin disabled);
- floor:  the fixture JSON-encodes the calls and makes one raw round trip
          over a Unix socket to the C echo server (tests/bench/echo_server.c):
          the least a check through a daemon can cost in Python;
- plugin: toolscored's fixture, each test replaying its approved snapshot;
- syrupy: the same tests with syrupy's ``assert snapshot == calls`` (when an
          interpreter with syrupy is given).

Each form runs REPEAT times per worker setting, the forms alternating, and
the minimum of each is kept (on a shared machine noise only ever adds).
The time measured is pytest's test loop in the controlling process
(interpreter start and collection excluded; under xdist the controller's
loop, the workers' collection and tests included). Prints one line per
worker setting:

  workers=0 n=2000 noop_s=... floor_s=... plugin_s=... syrupy_s=...

Usage: pytest_bench.py --build DIR --socket SOCK --echo SOCK --calls FILE
       [--tests N] [--repeat R] [--workers "0 2 8"] [--syrupy-python PY]
       [--work DIR]
(a daemon must answer on --socket, the echo server on --echo).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

CONFTEST_TIMER = '''
import json, os, time
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    t0 = time.perf_counter()
    yield
    if not hasattr(session.config, "workerinput"):
        with open(os.environ["BENCH_OUT"], "w") as f:
            json.dump({"seconds": time.perf_counter() - t0, "failed": session.testsfailed}, f)
'''

NOOP_FIXTURE = '''
@pytest.fixture
def toolscore_snapshot():
    return lambda actual, **kw: None
'''

# The floor: what any check through a daemon pays at least in Python.
FLOOR_FIXTURE = '''
import socket

_echo = None

def _floor_check(actual, **kw):
    global _echo
    if _echo is None:
        _echo = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _echo.connect(os.environ["BENCH_ECHO"])
    data = json.dumps(actual).encode()
    _echo.sendall(data)
    got = 0
    while got < len(data):
        chunk = _echo.recv(65536)
        if not chunk:
            raise RuntimeError("the echo server closed the connection")
        got += len(chunk)

@pytest.fixture
def toolscore_snapshot():
    return _floor_check
'''

TEST = '''
import json, os
import pytest

with open(os.environ["BENCH_CALLS"]) as f:
    CALLS = json.load(f)

@pytest.mark.parametrize("i", range(%d))
def test_replay(toolscore_snapshot, i):
    toolscore_snapshot(CALLS)
'''

SYRUPY_TEST = '''
import json, os
import pytest

with open(os.environ["BENCH_CALLS"]) as f:
    CALLS = json.load(f)

@pytest.mark.parametrize("i", range(%d))
def test_replay(snapshot, i):
    assert snapshot == CALLS
'''


def run(python: str, project: str, env: dict, args: List[str]) -> float:
    out = os.path.join(project, "bench.json")
    env = dict(env, BENCH_OUT=out)
    p = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "no:warnings", *args], cwd=project, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SystemExit(f"pytest_bench: pytest {' '.join(args)} in {os.path.basename(project)} "
                         f"failed:\n{p.stdout[-3000:]}")
    with open(out) as f:
        data = json.load(f)
    return data["seconds"]


def make_project(base: str, name: str, fixture: str, test: str, n: int) -> str:
    d = os.path.join(base, name)
    os.makedirs(d)
    with open(os.path.join(d, "conftest.py"), "w") as f:
        f.write(CONFTEST_TIMER + fixture)
    with open(os.path.join(d, "test_bench.py"), "w") as f:
        f.write(test % n)
    with open(os.path.join(d, "pytest.ini"), "w") as f:
        f.write("[pytest]\n")
    return d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("--echo", required=True)
    ap.add_argument("--calls", required=True)
    ap.add_argument("--tests", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--workers", default="0 2 8")
    ap.add_argument("--syrupy-python", default="")
    ap.add_argument("--work", default=None,
                    help="where the suites go (left for the caller to remove once the daemon "
                         "stopped); default: a new temporary directory")
    o = ap.parse_args()
    base = tempfile.mkdtemp(prefix="tspy-bench-", dir=o.work)
    projects = {
        "noop": make_project(base, "noop", NOOP_FIXTURE, TEST, o.tests),
        "floor": make_project(base, "floor", FLOOR_FIXTURE, TEST, o.tests),
        "plugin": make_project(base, "plugin", "", TEST, o.tests),
    }
    if o.syrupy_python:
        projects["syrupy"] = make_project(base, "syrupy", "", SYRUPY_TEST, o.tests)
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "TOOLSCORE_RUN", "TOOLSCORE_RECORD_UPDATE", "TOOLSCORE_DIR",
                        "PYTEST_ADDOPTS")}
    env.update(PYTHONPATH=os.path.join(o.build, "python"), TOOLSCORE_SOCKET=o.socket,
               TOOLSCORED="/bin/false", PYTHONDONTWRITEBYTECODE="1",
               BENCH_CALLS=os.path.abspath(o.calls), BENCH_ECHO=o.echo)
    # Only the plugin's project loads our plugin.
    off = dict(env, PYTEST_ADDOPTS="-p no:toolscored")
    forms: Dict[str, tuple] = {
        "noop": (sys.executable, off),
        "floor": (sys.executable, off),
        "plugin": (sys.executable, env),
    }
    if o.syrupy_python:
        forms["syrupy"] = (o.syrupy_python, off)
        run(o.syrupy_python, projects["syrupy"], off, ["--snapshot-update"])
    # Record the N baselines, approve them, and let them age past the
    # daemon's racy-timestamp margin (3 s), as a committed baseline is.
    run(sys.executable, projects["plugin"], env, ["-x"])
    subprocess.run([os.path.join(o.build, "tsctl"), "--socket", o.socket, "approve", "--all",
                    "--dir", os.path.join(projects["plugin"], ".toolscore", "snapshots")],
                   check=True, stdout=subprocess.DEVNULL)
    time.sleep(3.5)
    for workers in o.workers.split():
        args = ["-n", workers]
        # -n 0: every form; with workers, the plugin against the no-op.
        names = list(forms) if workers == "0" else ["noop", "plugin"]
        best: Dict[str, float] = {}
        for name in names:  # warm the page cache and the daemon's
            run(forms[name][0], projects[name], forms[name][1], args)
        for _ in range(o.repeat):
            for name in names:
                t = run(forms[name][0], projects[name], forms[name][1], args)
                best[name] = min(best.get(name, t), t)
        fields = " ".join(f"{k}_s={v:.4f}" for k, v in best.items())
        print(f"workers={workers} n={o.tests} {fields}", flush=True)


if __name__ == "__main__":
    main()

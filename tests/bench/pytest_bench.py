"""The pytest plugin's cost per check (make bench, part "python").

Builds one suite of N tests, each replaying an approved 10-call snapshot
through the toolscore_snapshot fixture, and runs it REPEAT times with the
plugin and with a no-op fixture of the same name (the plugin disabled),
alternating, under -n 0 and -n 8. The time measured is pytest's test loop
(collection and interpreter start excluded; under xdist the controller's
loop, workers included). Prints one result line per worker setting:

  workers=0 n=2000 plugin_s=... noop_s=... per_check_ms=... ratio=...

Usage: pytest_bench.py --build DIR --socket SOCK [--tests N] [--repeat R]
(a daemon must answer on SOCK).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

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

TEST = '''
import pytest

def calls(i):
    return [{"tool": f"tool_{k}", "args": {"query": f"step {k} of flow", "limit": k,
             "options": {"exact": True, "region": "eu"}}} for k in range(10)]

@pytest.mark.parametrize("i", range(%d))
def test_replay(toolscore_snapshot, i):
    toolscore_snapshot(calls(i))
'''


def run(project: str, env: dict, args: list) -> float:
    out = os.path.join(project, "bench.json")
    env = dict(env, BENCH_OUT=out)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "no:warnings", *args], cwd=project, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SystemExit(f"pytest_bench: pytest {' '.join(args)} failed:\n{p.stdout[-3000:]}")
    with open(out) as f:
        data = json.load(f)
    return data["seconds"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("--tests", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    o = ap.parse_args()
    base = tempfile.mkdtemp(prefix="tspy-bench-")
    plugin_dir = os.path.join(base, "plugin")
    noop_dir = os.path.join(base, "noop")
    for d, extra in ((plugin_dir, ""), (noop_dir, NOOP_FIXTURE)):
        os.makedirs(d)
        with open(os.path.join(d, "conftest.py"), "w") as f:
            f.write(CONFTEST_TIMER + extra)
        with open(os.path.join(d, "test_bench.py"), "w") as f:
            f.write(TEST % o.tests)
        with open(os.path.join(d, "pytest.ini"), "w") as f:
            f.write("[pytest]\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "TOOLSCORE_RUN", "TOOLSCORE_RECORD_UPDATE", "TOOLSCORE_DIR")}
    env.update(PYTHONPATH=os.path.join(o.build, "python"), TOOLSCORE_SOCKET=o.socket,
               TOOLSCORED="/bin/false", PYTHONDONTWRITEBYTECODE="1")
    # Record the N baselines, approve them, and let them age past the
    # daemon's racy-timestamp margin (3 s), as a committed baseline is.
    run(plugin_dir, env, ["-x"])
    subprocess.run([os.path.join(o.build, "tsctl"), "--socket", o.socket, "approve", "--all",
                    "--dir", os.path.join(plugin_dir, ".toolscore", "snapshots")],
                   check=True, stdout=subprocess.DEVNULL)
    time.sleep(3.5)
    noop_env = dict(env, PYTEST_ADDOPTS="-p no:toolscored")
    for workers in ("0", "8"):
        args = ["-n", workers]
        plugin, noop = [], []
        run(plugin_dir, env, args)  # warm the page cache and the daemon's
        for _ in range(o.repeat):
            noop.append(run(noop_dir, noop_env, args))
            plugin.append(run(plugin_dir, env, args))
        p, n = statistics.median(plugin), statistics.median(noop)
        print(f"workers={workers} n={o.tests} plugin_s={p:.4f} noop_s={n:.4f} "
              f"per_check_ms={(p - n) * 1000 / o.tests:.4f} ratio={p / n:.4f}")
    subprocess.run(["rm", "-rf", base])


if __name__ == "__main__":
    main()

#!/bin/sh
# The memory bound of a run (docs/internals/state.md, "Runs"): 3,000 FAILED
# checks in one run (each with about 5 KB of observed calls and a drift
# report) keep under 1 MiB in the daemon's runs (status runs_memory: names,
# claims, list ids; the records, reports and calls are on disk), the
# daemon's resident size stays under 256 MiB while the run is open, and
# run.close gives the memory back: afterwards the daemon is within 16 MiB of
# its size before the run. The checks come from one client over one
# connection (the Python extension, a thin layer over libtoolscore-client).
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

export XDG_STATE_HOME="$WORK/state"
start_daemon
make_py
# Under a sanitizer the daemon keeps freed memory in quarantine: only the
# runs' own accounting is held to its bound there.
t 0 env SANITIZED="$SANITIZED" "$WORK/py" - "$SOCK" "$STORE" "$DAEMON_PID" <<'PY'
import json, os, sys
from toolscored import _native

sock, store, pid = sys.argv[1], sys.argv[2], sys.argv[3]
N = 3000
MiB = 1 << 20

def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise SystemExit("no VmRSS")

def calls(i, v):
    return [{"tool": "search", "args": {"q": f"query {i}", "v": v, "pad": "x" * 1000}}
            for _ in range(5)]

c = _native.Client(sock)
for i in range(N):
    c.check(store, f"n{i}", calls(i, 0))
c.approve(store, all=True)
before = rss()
run = c.run_open(store)["run"]
for i in range(N):
    r = c.check(store, f"n{i}", calls(i, 1), run=run, test=f"tests/test_m.py::test_{i}")
    assert r["outcome"] == "FAILED", r
open_rss = rss()
held = c.status()["runs_memory"]
summary = c.run_close(run)
assert summary["counts"]["failed"] == N, summary["counts"]
closed_rss = rss()
after = c.status()["runs_memory"]
report = json.loads(c.run_report(run, "json"))
assert len(report["checks"]) == N and all(x["report"] for x in report["checks"])
print(f"rss before {before / MiB:.1f} MiB, open {open_rss / MiB:.1f} MiB, "
      f"closed {closed_rss / MiB:.1f} MiB; runs hold {held / 1024:.0f} KiB open, "
      f"{after / 1024:.0f} KiB closed")
assert held < 1 * MiB, held
assert after < 64 * 1024, after
if not os.environ.get("SANITIZED"):
    assert open_rss < 256 * MiB, open_rss
    assert closed_rss < before + 16 * MiB, (before, closed_rss)
PY
printf '%s\n' "$OUT"

finish

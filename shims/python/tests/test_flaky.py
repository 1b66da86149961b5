"""Repeats as flakiness in a pytest session (docs/rules.md, "Repeats"): the
daemon's flaky lines printed after the summary line, a parametrized test
checking one explicit name being repeats of one test (not a duplicate
claim), flakiness before approval, and flaky names failing the session
only in CI."""

from __future__ import annotations

import pytest

from conftest import Project, summary_lines

REPEATED = """
import pytest

@pytest.mark.parametrize("i", range(3))
def test_seat(toolscore_snapshot, i):
    calls = [{"tool": "book", "args": {"seat": "12A" if i != 1 else "14C", "class": "eco"}}]
    toolscore_snapshot(calls, name="seat", rules=%s)
"""


def test_parametrized_repeats_are_flaky_not_duplicates(project: Project,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    project.pt.makepyfile(test_repeat=REPEATED % "None")
    r = project.run("-n", "2")
    r.assert_outcomes(passed=3, warnings=3)
    lines = summary_lines(r)
    assert lines[0] == "toolscore: 1 snapshot created (pending approval), 2 pending"
    out = r.stdout.str()
    # Before approval, compared with the pending recording; not claimed twice.
    assert "flaky: seat \u2014 3 runs, 2 distinct (pending approval); varied: " \
           "calls[0].args.seat (2 values)" in out, out
    assert "claimed by more than one test" not in out
    assert r.ret == 0
    project.approve_all()
    # Every check passes (a type matcher relaxes the seat), the agent still
    # varies: flaky, which fails the session in CI only.
    project.pt.makepyfile(test_repeat=REPEATED % '{"match": {"book.args.seat": {"type": True}}}')
    r = project.run("-n", "2")
    r.assert_outcomes(passed=3)
    assert "flaky: seat \u2014 3 runs, 2 distinct; varied: calls[0].args.seat (2 values)" in \
        r.stdout.str()
    assert r.ret == 0
    monkeypatch.setenv("CI", "1")
    r = project.run("-n", "2")
    r.assert_outcomes(passed=3)
    assert "flaky: seat" in r.stdout.str()
    assert r.ret == 1
    # Ignoring the seat makes it stable: passed, not flaky, green in CI.
    project.pt.makepyfile(test_repeat=REPEATED % '{"ignore": ["book.args.seat"]}')
    r = project.run("-n", "2")
    r.assert_outcomes(passed=3)
    assert summary_lines(r) == ["toolscore: 3 passed"]
    assert "flaky:" not in r.stdout.str()
    assert r.ret == 0

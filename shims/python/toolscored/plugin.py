"""The pytest plugin of toolscored (entry point ``toolscored`` under
``pytest11``): the ``toolscore_snapshot`` fixture, the ``--toolscore-*``
options, and one run on the daemon per session whose summary line the
controlling process prints, covering every xdist worker.

Process roles (docs/pytest.md):
- the controller (the only process without xdist, or xdist's controller)
  owns the run: it opens it (lazily at the first check without workers,
  before the first worker starts with them) unless TOOLSCORE_RUN names a
  run to join, closes it at the end, prints its summary, flaky names,
  duplicate claims and unused snapshots (--toolscore-orphans), and writes
  the report files (--toolscore-junit, --toolscore-json-report,
  --toolscore-html);
- xdist workers get the run id through ``workerinput`` and send back what
  the controller needs (partial-run reasons, checks made) through
  ``workeroutput``.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Mapping, Optional, Set

import pytest

from . import _native, _reports, api
from ._errors import DaemonUnavailableError, NotFoundError, ToolscoreError
from .result import EvaluationResult

_STATE = pytest.StashKey["_Session"]()
_WORKER_KEY = "toolscored"
_ORPHAN_MODES = ("warn", "fail", "delete")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    _refuse_reference_plugin(pluginmanager)
    group = parser.getgroup("toolscore", "toolscored: snapshot testing of agent tool calls")
    group.addoption("--toolscore-snapshot-dir", metavar="PATH", default=None,
                    dest="toolscore_snapshot_dir",
                    help="root of the snapshot files, relative to the rootdir "
                         "(default: $TOOLSCORE_DIR, else .toolscore/snapshots)")
    group.addoption("--toolscore-update", action="store_true", default=False,
                    dest="toolscore_update",
                    help="re-record every snapshot a test checks, and approve it "
                         "(also TOOLSCORE_RECORD_UPDATE=1)")
    group.addoption("--toolscore-allow-pending", action="store_true", default=False,
                    dest="toolscore_allow_pending",
                    help="missing or pending snapshots warn instead of failing, even in CI")
    group.addoption("--toolscore-orphans", choices=_ORPHAN_MODES, default=None,
                    dest="toolscore_orphans",
                    help="after a complete run, report snapshots no test checked: warn, "
                         "fail the session, or delete them")
    group.addoption("--toolscore-junit", metavar="FILE", default=None, dest="toolscore_junit",
                    help="write the run's JUnit XML report to FILE (one testcase per snapshot "
                         "check; relative to the invocation directory)")
    group.addoption("--toolscore-json-report", metavar="FILE", default=None,
                    dest="toolscore_json_report",
                    help="write the run's JSON report to FILE (the input of tsctl report merge)")
    group.addoption("--toolscore-html", metavar="FILE", default=None, dest="toolscore_html",
                    help="write the run's HTML report to FILE (one self-contained page)")


def _refuse_reference_plugin(pluginmanager: pytest.PytestPluginManager) -> None:
    """Both plugins define toolscore_snapshot and the --toolscore-* options:
    say so plainly instead of letting argparse fail on the second."""
    names: List[str] = []
    for name, plugin in pluginmanager.list_name_plugin():
        mod = getattr(plugin, "__name__", "") or ""
        if mod == "toolscore" or mod.startswith("toolscore."):
            names.append(name)
    # The reference's distribution is looked for only when its package is
    # importable at all (scanning every distribution costs ~25 ms).
    if not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") and _importable("toolscore"):
        from importlib import metadata
        for dist in metadata.distributions():
            for ep in dist.entry_points:
                # the plugin's module, whatever the distribution's name
                # (tool-scorer's is toolscore.pytest_plugin)
                module = ep.value.split(":")[0].strip()
                if (ep.group == "pytest11" and ep.name not in names
                        and (module == "toolscore" or module.startswith("toolscore."))
                        and not pluginmanager.is_blocked(ep.name)):
                    names.append(ep.name)
    names = [n for n in names if not pluginmanager.is_blocked(n)]
    if names:
        raise pytest.UsageError(
            "toolscored: the reference tool's pytest plugin (toolscore, plugin "
            f"{', '.join(repr(n) for n in names)}) is active too, and both define the "
            "toolscore_snapshot fixture and the --toolscore-* options. Keep one: add "
            f"'-p no:{names[0]}' to use toolscored's (e.g. in addopts), or '-p no:toolscored' "
            "to use the reference's, or uninstall one of the two packages.")


def _importable(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def pytest_configure(config: pytest.Config) -> None:
    state = _Session(config)
    config.stash[_STATE] = state
    config.pluginmanager.register(state, "toolscored-session")


class _Session:
    """What one pytest process knows of the session's snapshot checks; a
    plugin object of its config (the session's hooks are its methods)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.store = _store_root(config)
        self.ci = api.env_ci()
        self.update = bool(config.getoption("toolscore_update")) or api.env_update()
        self.allow_pending = bool(config.getoption("toolscore_allow_pending"))
        self.orphans: Optional[str] = config.getoption("toolscore_orphans")
        self.run: Optional[str] = None
        self.run_owned = False    # this process opened it and closes it
        self.run_tried = False
        self.run_error: Optional[str] = None
        self.run_lost = False
        self.color: Optional[bool] = None
        self.width = 0            # the drift report's width (0: the daemon's default)
        self.json_diff = api.env_json_diff()
        self.reports: List[_reports.Report] = []
        self.checks = 0
        self.partial: List[str] = _partial_from_options(config)
        self.not_passed: Set[str] = set()
        self.lines: List[str] = []
        self.lock = threading.Lock()  # tests may check from several threads
        if self.worker:
            wi: Mapping[str, Any] = config.workerinput  # type: ignore[attr-defined]
            self.run = wi.get("toolscored_run")
            self.run_error = wi.get("toolscored_run_error")
            self.color = bool(wi.get("toolscored_color", False))
            self.width = int(wi.get("toolscored_width", 0))
            self.run_tried = True
        else:
            self.width = api.report_width()
            joined = os.environ.get("TOOLSCORE_RUN") or None
            if joined:
                self.run = joined
                self.run_tried = True
            self.reports = _reports.wanted(config.getoption,
                                           str(config.invocation_params.dir))
            for r in self.reports:
                why = _reports.problem(r.path)
                if why is not None:
                    raise pytest.UsageError(f"toolscored: {r.option} {r.path}: cannot write "
                                            f"the report there: {why}")

    # ---- the run ------------------------------------------------------

    def use_color(self) -> bool:
        if self.color is None:
            tw = self.config.get_terminal_writer() if self.config.pluginmanager.has_plugin(
                "terminalreporter") else None
            self.color = bool(tw is not None and tw.hasmarkup)
        return self.color

    def ensure_run(self) -> Optional[str]:
        """The run checks are counted in; the controller opens it the first
        time. A daemon that cannot be reached is raised (the test errors);
        any other failure leaves the session without a run (noted at the end)."""
        __tracebackhide__ = True
        if self.run_tried:
            return self.run
        with self.lock:
            return self._open_run()

    def _open_run(self) -> Optional[str]:
        __tracebackhide__ = True
        if not self.run_tried:
            try:
                res = api.client().run_open(self.store, "pytest " + str(self.config.rootpath))
            except DaemonUnavailableError:
                raise
            except ToolscoreError as e:
                self.run_tried = True
                self.run_error = str(e)
                return None
            self.run_tried = True
            self.run = res["run"]
            self.run_owned = True
            self._note_other_build()
        return self.run

    def _note_other_build(self) -> None:
        """Said once, by the controller: the daemon is another build than
        this package (one the package's client started and that was idle
        was replaced already; docs/packaging.md)."""
        c = api.client()
        theirs = c.server_version
        if theirs is not None and theirs != _native.__version__:
            self.lines.append(
                f"toolscore: note: the daemon at {c.socket_path} is toolscored {theirs}, this "
                f"package is {_native.__version__} (another build; `tsctl stop` lets the next "
                "session start this package's daemon)")

    def check(self, name: str, nodeid: str, actual: Any, min_score: float,
              weights: Optional[Mapping[str, float]], strict: bool, rules: Any,
              format: Optional[str]) -> Dict[str, Any]:
        __tracebackhide__ = True
        fmt = api.check_args(min_score, weights, rules, format)
        run = self.ensure_run()
        c = api.client()
        kw = dict(format=fmt, min_score=float(min_score), weights=weights, strict=bool(strict),
                  ci=self.ci, update=self.update, allow_pending=self.allow_pending,
                  test=nodeid, color=self.use_color(),
                  rules=None if rules is None else dict(rules),
                  width=self.width, json_diff=self.json_diff)
        try:
            res = c.check(self.store, name, actual, run=run, **kw)
        except NotFoundError:
            if run is None:
                raise
            # Only an unknown run is not_found for a check: the daemon
            # restarted and forgot it. The snapshot check itself still holds.
            self.run_lost = True
            self.run = None
            res = c.check(self.store, name, actual, run=None, **kw)
        with self.lock:
            self.checks += 1
        return res

    # ---- hooks of this session -------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # With --toolscore-orphans the run is wanted even if no test checks
        # a snapshot any more (then every snapshot is unused); with a report
        # file, so that a session checking nothing still writes one.
        if (self.orphans or self.reports) and not self.worker and not self.run_tried:
            try:
                self.ensure_run()
            except DaemonUnavailableError as e:
                self.run_tried = True
                self.run_error = str(e)
                if self.orphans:
                    self.lines.append(
                        f"toolscore: --toolscore-orphans={self.orphans} skipped: {e}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed or (report.skipped and report.when != "teardown"):
            self.not_passed.add(report.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.partial.append("collection errors")

    def pytest_deselected(self, items: List[pytest.Item]) -> None:
        if items:
            self.partial.append(f"{len(items)} test(s) deselected")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: the run is opened before the first worker
        starts, and its id handed to every worker."""
        try:
            self.ensure_run()
        except DaemonUnavailableError as e:
            self.run_tried = True  # the workers will say why, test by test
            self.run_error = str(e)
        node.workerinput["toolscored_run"] = self.run
        node.workerinput["toolscored_run_error"] = self.run_error
        node.workerinput["toolscored_color"] = self.use_color()
        node.workerinput["toolscored_width"] = self.width

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        out = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if out:
            self.checks += out.get("checks", 0)
            self.run_lost = self.run_lost or out.get("run_lost", False)
            self.partial.extend(out.get("partial", []))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.worker:
            self.config.workeroutput[_WORKER_KEY] = {  # type: ignore[attr-defined]
                "checks": self.checks, "run_lost": self.run_lost, "partial": self.partial}
        else:
            self.finish(session, exitstatus)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.lines:
            terminalreporter.write_line(line)

    # ---- the end of the session (controller) ---------------------------

    def finish(self, session: pytest.Session, exitstatus: int) -> None:
        summary = None
        # Say so when not every test ran (-k, deselection, --lf, collection
        # errors, an early stop): the daemon then refuses to delete orphans
        # of this run without --force, also when `tsctl run` owns the run.
        reasons = self.partial_reasons(session, exitstatus)
        if reasons and self.run is not None:
            try:
                api.client().run_partial(self.run, reasons)
            except NotFoundError:
                pass  # the run is gone; said below
            except ToolscoreError as e:
                self.lines.append(f"toolscore: the run could not be marked partial: {e}")
        if self.run_owned and self.run is not None:
            try:
                summary = api.client().run_close(self.run)
            except NotFoundError:
                self.run_lost = True
            except ToolscoreError as e:
                self.lines.append(f"toolscore: the run's summary could not be read: {e}")
        elif self.run_error and self.checks:
            self.lines.append(f"toolscore: no summary for this session: {self.run_error}")
        if self.run_lost:
            self.lines.append("toolscore: the daemon restarted during the session and forgot "
                              "its run: no summary line (the snapshot checks were made)")
        if not self.write_reports() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if summary is None:
            if self.orphans and self.checks:
                self.lines.append(f"toolscore: --toolscore-orphans={self.orphans} skipped: "
                                  + ("the run belongs to the process that opened it "
                                     "(TOOLSCORE_RUN); use `tsctl orphans` there"
                                     if self.run and not self.run_owned else
                                     "there is no complete run to compare with"))
            return
        if summary.get("summary"):
            self.lines.append(summary["summary"])
        flaky = summary.get("flaky_lines") or []
        self.lines.extend(flaky)
        duplicates = summary.get("duplicates") or []
        for d in duplicates:
            self.lines.append(f"toolscore: error: snapshot '{d['name']}' was claimed by more "
                              f"than one test: {', '.join(d['tests'])}")
        failed = bool(duplicates or flaky) and self.ci
        if self.orphans:
            failed = self.handle_orphans(session, exitstatus) or failed
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def write_reports(self) -> bool:
        """Write every report file asked for from the run (closed, or as it
        stands when joined); False when one could not be written (said in
        the terminal summary, and the file not left stale)."""
        ok = True
        for r in self.reports:
            why = None
            if self.run is None or self.run_lost:
                why = ("the daemon forgot the run" if self.run_lost else
                       self.run_error or "the session has no run")
            else:
                try:
                    _reports.write(r.path, api.client().run_report(self.run, r.format))
                except (ToolscoreError, OSError, UnicodeError) as e:
                    why = str(e)
            if why is not None:
                ok = False
                _reports.discard(r.path)
                self.lines.append(f"toolscore: error: {r.option} {r.path} was not written: {why}")
        return ok

    def partial_reasons(self, session: pytest.Session, exitstatus: int) -> List[str]:
        reasons = list(self.partial)
        if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            reasons.append(f"the session ended with {pytest.ExitCode(exitstatus).name}")
        maxfail = self.config.getoption("maxfail", 0) or 0
        if maxfail and session.testsfailed >= maxfail:
            reasons.append(f"it stopped after {session.testsfailed} failure(s) (--maxfail)")
        if session.shouldstop or session.shouldfail:
            reasons.append("it stopped early")
        return list(dict.fromkeys(reasons))

    def handle_orphans(self, session: pytest.Session, exitstatus: int) -> bool:
        """--toolscore-orphans after a complete run; True to fail the session."""
        mode = self.orphans
        reasons = self.partial_reasons(session, exitstatus)
        if reasons:
            self.lines.append(f"toolscore: --toolscore-orphans={mode} skipped: the run is "
                              f"partial ({'; '.join(reasons)})")
            return False
        try:
            names = api.client().orphans(self.store, self.run)["names"]
        except ToolscoreError as e:
            self.lines.append(f"toolscore: unused snapshots could not be listed: {e}")
            return mode == "fail"
        # A test that did not pass may not have reached its check: its
        # default-named snapshots are not unused.
        names = [n for n in names if not _named_after(n, self.not_passed)]
        if not names:
            return False
        if mode == "delete" and self.not_passed:
            self.lines.append(f"toolscore: not deleting {len(names)} unused snapshot(s): "
                              f"{len(self.not_passed)} test(s) did not pass, and a snapshot "
                              "they name explicitly may only look unused")
            mode = "warn"
        if mode == "delete":
            deleted = []
            for n in names:
                try:
                    api.client().rm(self.store, n)
                    deleted.append(n)
                except NotFoundError:
                    pass
            self.lines.append(f"toolscore: deleted {len(deleted)} unused snapshot(s):")
            self.lines.extend(f"  {n}" for n in deleted)
            return False
        self.lines.append(f"toolscore: {len(names)} unused snapshot(s) (no test checked them):")
        self.lines.extend(f"  {n}" for n in names)
        return mode == "fail"


def _named_after(name: str, nodeids: Set[str]) -> bool:
    """True when name is a default snapshot name of one of nodeids (the id
    itself or the id with -2, -3, ...)."""
    if name in nodeids:
        return True
    base, sep, suffix = name.rpartition("-")
    return bool(sep) and suffix.isdigit() and base in nodeids


def _store_root(config: pytest.Config) -> str:
    opt = config.getoption("toolscore_snapshot_dir")
    if opt:
        path = opt if os.path.isabs(opt) else os.path.join(str(config.rootpath), opt)
    elif os.environ.get("TOOLSCORE_DIR"):
        path = os.environ["TOOLSCORE_DIR"]  # tsctl run's root: relative to the cwd
    else:
        path = os.path.join(str(config.rootpath), api.DEFAULT_ROOT)
    try:
        return _native.resolve_store(path)
    except ValueError as e:
        raise pytest.UsageError(f"toolscored: snapshot directory {path!r}: {e}") from None


def _partial_from_options(config: pytest.Config) -> List[str]:
    """Why the command line selects part of the suite only."""
    reasons = []
    opt = config.option
    if getattr(opt, "keyword", ""):
        reasons.append("-k")
    if getattr(opt, "markexpr", ""):
        reasons.append("-m")
    if getattr(opt, "lf", False):
        reasons.append("--lf")
    if getattr(opt, "stepwise", False) or getattr(opt, "stepwise_skip", False):
        reasons.append("--sw")
    if getattr(opt, "deselect", None):
        reasons.append("--deselect")
    if getattr(opt, "collectonly", False):
        reasons.append("--collect-only")
    args = getattr(opt, "file_or_dir", None) or []
    if args:
        full = {os.path.realpath(str(config.rootpath))}
        testpaths = config.getini("testpaths") or []
        if testpaths:
            full = {os.path.realpath(os.path.join(str(config.rootpath), p)) for p in testpaths}
        given = {os.path.realpath(os.path.join(str(config.invocation_params.dir), a))
                 for a in args}
        if any("::" in a for a in args) or given != full:
            reasons.append("test paths given on the command line")
    return reasons


# ---- the fixture -------------------------------------------------------

class SnapshotFixture:
    """The callable the ``toolscore_snapshot`` fixture returns."""

    __slots__ = ("_session", "_nodeid", "_unnamed", "_properties")

    def __init__(self, session: _Session, nodeid: str,
                 properties: Optional[List[Any]] = None) -> None:
        self._session = session
        self._nodeid = nodeid
        self._unnamed = 0
        self._properties = properties  # the test's user_properties, under --junitxml

    def __call__(self, actual: Any, *, min_score: float = 1.0,
                 weights: Optional[Mapping[str, float]] = None, strict: bool = False,
                 name: Optional[str] = None, rules: Any = None,
                 format: str = "auto") -> Optional[EvaluationResult]:
        """Check actual (a raw agent response or a list of {"tool", "args"})
        against the snapshot called name (default: the test's node id, with
        -2, -3, ... for later unnamed calls in the test). Returns the
        EvaluationResult of a replayed approved baseline, None after a
        warning when the snapshot was created, is pending or was updated;
        raises SnapshotMismatchError (the drift report) or a CI error, both
        AssertionErrors."""
        __tracebackhide__ = True
        if name is None:
            self._unnamed += 1
            name = self._nodeid if self._unnamed == 1 else f"{self._nodeid}-{self._unnamed}"
        elif not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        res = self._session.check(name, self._nodeid, actual, min_score, weights, strict,
                                  rules, format)
        if self._properties is not None:
            # pytest's --junitxml writes these as the test case's properties.
            self._properties.append(("toolscore.name", res["name"]))
            self._properties.append(("toolscore.outcome", res["outcome"]))
            if res.get("result") is not None:
                self._properties.append(("toolscore.score", f"{res['result']['score']:.4f}"))
        return api._outcome_to_python(res, stacklevel=2)


@pytest.fixture
def toolscore_snapshot(request: pytest.FixtureRequest) -> SnapshotFixture:
    """Snapshot-test an agent's tool calls: ``toolscore_snapshot(response)``
    records a pending snapshot named after the test on its first run, and
    replays the approved baseline afterwards (drift fails the test)."""
    junit = bool(request.config.getoption("xmlpath", None))
    return SnapshotFixture(request.config.stash[_STATE], request.node.nodeid,
                           request.node.user_properties if junit else None)


# ---- hooks ---------------------------------------------------------------

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    if call.excinfo is not None and call.excinfo.errisinstance(DaemonUnavailableError):
        # Reported as an ERROR: the test could not run, it did not fail.
        outcome.get_result().toolscored_error = True


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):  # type: ignore[no-untyped-def]
    if getattr(report, "toolscored_error", False) and report.failed:
        return "error", "E", "ERROR"
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None and config.pluginmanager.is_registered(state):
        config.pluginmanager.unregister(state)

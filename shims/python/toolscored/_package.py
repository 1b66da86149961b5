"""What this installation of toolscored knows of itself (docs/packaging.md):
its version, the executables it ships in ``bin/`` (run by the console
scripts ``tsctl`` and ``toolscored``), whether its C extension loads in
this Python, and the cache files pytest leaves in it.

Imports only the standard library, so that the console scripts and the
pytest entry point work, or say in one line what is wrong, even when the C
extension does not load.
"""

from __future__ import annotations

import errno
import glob
import importlib
import importlib.machinery
import os
import platform
import sys
from typing import List, NoReturn, Optional

VERSION = "@VERSION@"
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
BIN_DIR = os.path.join(PACKAGE_DIR, "bin")

_problem: Optional[str] = None
_checked = False


def _extension_files() -> List[str]:
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(PACKAGE_DIR, "_native.*")))


def native_problem() -> Optional[str]:
    """None when toolscored._native loads; else one line saying what was
    tried, why it failed and what to do."""
    global _problem, _checked
    if _checked:
        return _problem
    _checked = True
    try:
        importlib.import_module("toolscored._native")
    except ImportError as e:
        here = (f"{platform.python_implementation()} {platform.python_version()} "
                f"({sys.executable})")
        wants = importlib.machinery.EXTENSION_SUFFIXES[0]
        files = [f for f in _extension_files() if not f.endswith((".py", ".pyi"))]
        if not files:
            what = f"has no C extension (toolscored/_native{wants} is missing)"
        elif not any(f == "_native" + wants for f in files):
            what = (f"was built for another Python ({', '.join(files)}); this one loads "
                    f"_native{wants}")
        else:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            what = f"cannot load its C extension: {reason}"
        _problem = (f"toolscored {VERSION} in {PACKAGE_DIR} {what}, running under {here}: "
                    "install toolscored for this Python (pip install the wheel made for it, "
                    "or the sdist, into this environment)")
    return _problem


def missing(name: str, api: List[str]) -> NoReturn:
    """The package's attributes when the C extension does not load: its
    API names raise ImportError with the one line of native_problem()."""
    problem = native_problem()
    if problem is not None and name in api:
        raise ImportError(problem)
    raise AttributeError(f"module 'toolscored' has no attribute {name!r}")


def drop_pytest_pycs() -> None:
    """Remove the assertion-rewritten caches pytest writes beside a plugin's
    modules (<module>.<tag>-pytest-<version>.pyc): pip uninstall knows only
    the files it installed, and would leave them, and so a phantom
    toolscored directory, behind. pytest rewrites the modules again in the
    next session (a few milliseconds)."""
    for pyc in glob.glob(os.path.join(PACKAGE_DIR, "__pycache__", "*-pytest-*.pyc")):
        try:
            os.unlink(pyc)
        except OSError:
            pass  # another process removed it, or the directory is read-only


def _exec(name: str) -> NoReturn:
    path = os.path.join(BIN_DIR, name)
    try:
        os.execv(path, [path] + sys.argv[1:])
    except OSError as e:
        why = "is missing" if e.errno == errno.ENOENT else (
            "is not executable" if e.errno == errno.EACCES else f"cannot run: {e.strerror}")
        sys.stderr.write(f"{name}: {path} {why} (toolscored {VERSION}); reinstall the package: "
                         "pip install --force-reinstall with the wheel or sdist it came from\n")
        sys.exit(127 if e.errno == errno.ENOENT else 126)


def tsctl() -> NoReturn:
    """The console script tsctl: the package's own tsctl."""
    _exec("tsctl")


def toolscored() -> NoReturn:
    """The console script toolscored: the package's own daemon."""
    _exec("toolscored")

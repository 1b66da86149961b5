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
import pathlib
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


def require_native() -> None:
    """Raise ImportError with native_problem()'s one line when the C
    extension does not load: the modules that need it (toolscored.api,
    toolscored.snapshots, toolscored.plugin) call it before importing it,
    so that importing them directly says what is wrong and what to do."""
    problem = native_problem()
    if problem is not None:
        raise ImportError(problem)


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


def console_script(name: str) -> Optional[str]:
    """The absolute path of the console script ``name`` that pip installed
    with this package, read from the distribution's RECORD (so whatever the
    install scheme: a venv's ``bin/``, ``~/.local/bin``), or None (a copy
    without one: ``make install``, the build tree)."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python 3.9 has it
        return None
    site = os.path.dirname(PACKAGE_DIR)
    try:
        # (its own .dist-info only: reading every distribution's metadata
        # costs each test process time in a large site)
        for info in glob.glob(os.path.join(glob.escape(site), "toolscored-*.dist-info")):
            dist = metadata.PathDistribution(pathlib.Path(info))
            for f in dist.files or []:
                if f.name == name and tuple(f.parts[:2]) != ("toolscored", "bin"):
                    return os.path.normpath(str(dist.locate_file(f)))
    except (OSError, ValueError):
        return None
    return None


def tsctl_command(path: Optional[str] = None) -> Optional[str]:
    """How this package's user runs its tsctl, as shell text, for the
    commands the checks print (``tsctl accept 'NAME'``): None when ``tsctl``
    on PATH (``path``, else $PATH) is this package's console script (an
    activated venv), or there is no console script (a system install,
    whose tsctl is on PATH); else the console script's absolute path,
    quoted for a shell, so that the printed command pastes into a shell
    where the venv is not activated (IDEs and CI run
    ``.venv/bin/python -m pytest``)."""
    import shlex
    import shutil

    script = console_script("tsctl")
    if script is None:
        return None
    found = shutil.which("tsctl", path=path)
    if found is not None:
        try:
            if os.path.samefile(found, script):
                return None
        except OSError:
            pass
    if not script.isprintable():
        return None  # it would not show as itself: the daemon prints "tsctl"
    return shlex.quote(script)


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

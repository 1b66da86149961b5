"""The PEP 517 build backend of the Python package toolscored
(pyproject.toml; docs/packaging.md): make builds the wheel and the sdist, as
`make dist` does. Nothing is downloaded: an sdist carries every source,
libuv's included (third_party/libuv/).

The wheel is built for the Python running this backend, in build-pip/
(build-pip/<interpreter>/ of a checkout, so it never mixes with a
developer's build/), without the Debian package step of the Makefile's first
stage: a missing -dev package is the Makefile's one-line error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any, Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _make(goal: str, outdir: str) -> str:
    """Run make GOAL with DIST_DIR=outdir; the one file it wrote there."""
    build = os.path.join("build-pip", sysconfig.get_config_var("SOABI") or "python")
    # OPTFLAGS without -g: what ships is stripped, and the compile is faster
    cmd = [os.environ.get("MAKE", "make"), "--no-print-directory", "-C", ROOT,
           f"-j{os.cpu_count() or 1}", "TS_DEPS_READY=1", f"PYTHON={sys.executable}",
           f"BUILD={build}", "OPTFLAGS=-O2", f"DIST_DIR={outdir}", goal]
    # make's output is the build log: pip shows it when the build fails
    rc = subprocess.call(cmd, stdout=sys.stderr)
    if rc != 0:
        raise SystemExit(f"toolscored: `{' '.join(cmd)}` failed (exit {rc}); see above")
    made = [f for f in os.listdir(outdir) if not f.startswith(".")]
    if len(made) != 1:
        raise SystemExit(f"toolscored: make {goal} wrote {made or 'nothing'} into {outdir}")
    return made[0]


def _build_into(goal: str, directory: str) -> str:
    tmp = tempfile.mkdtemp(prefix="toolscored-pep517-")
    try:
        name = _make(goal, tmp)
        os.makedirs(directory, exist_ok=True)
        shutil.move(os.path.join(tmp, name), os.path.join(directory, name))
        return name
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _build_into("dist-wheel", wheel_directory)


def build_sdist(sdist_directory: str,
                config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _build_into("dist-sdist", sdist_directory)

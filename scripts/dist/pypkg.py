"""Writes the Python package's wheel and sdist (make dist; docs/packaging.md).

Standard library only: it runs under the Python the wheel is for (so the
wheel's tags are that interpreter's), with no build tool installed.

  pypkg.py wheel OUTDIR VERSION PKGDIR EXTENSION DAEMON TSCTL
      the wheel for this interpreter: the pure-Python files of PKGDIR
      (@VERSION@ replaced), the C extension, and the two executables as
      toolscored/bin/{toolscored,tsctl}; tagged cpXY-cpXY-manylinux_2_N_ARCH,
      N the newest glibc symbol version the three ELF files need.
  pypkg.py sdist OUTDIR VERSION ROOT FILE...
      the sdist: FILE... (paths relative to ROOT, pyproject.toml among them;
      "SRC=DEST" puts SRC under the name DEST) and PKG-INFO.

Each prints the path it wrote, after removing the files of earlier builds it
replaces (other versions, or this interpreter's older wheel).
"""

from __future__ import annotations

import base64
import glob
import hashlib
import io
import os
import platform
import re
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from typing import Dict, List, Tuple

NAME = "toolscored"
SUMMARY = ("Snapshot testing for AI-agent tool calls: the pytest plugin, its API and the "
           "toolscored daemon")
REQUIRES_PYTHON = ">=3.9"
ENTRY_POINTS = """[console_scripts]
toolscored = toolscored._package:toolscored
tsctl = toolscored._package:tsctl

[pytest11]
toolscored = toolscored._plugin_entry
"""
DESCRIPTION = """\
toolscored records what an AI agent's tool calls were once, lets a person
review and approve them, then replays the approved baseline as a
deterministic regression test that fails with a clear diff the moment the
agent drifts. This package holds the pytest plugin (the `toolscore_snapshot`
fixture, loaded by pytest by itself), the API (`from toolscored import
SnapshotStore, snapshot_check`), and the `toolscored` daemon and `tsctl`
command line, which the package starts and runs itself: nothing else needs
to be installed.
"""


def metadata(version: str) -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            f"License: see the toolscored source\nRequires-Python: {REQUIRES_PYTHON}\n"
            "Classifier: Framework :: Pytest\nClassifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Programming Language :: C\n"
            "Classifier: Programming Language :: Python :: 3\n"
            "Classifier: Programming Language :: Python :: Implementation :: CPython\n"
            "Description-Content-Type: text/markdown\n\n" + DESCRIPTION)


def glibc_needed(path: str) -> Tuple[int, int]:
    """The newest GLIBC_x.y symbol version path needs."""
    out = subprocess.run(["objdump", "-T", path], check=True, capture_output=True,
                         text=True).stdout
    found = [(int(a), int(b)) for a, b in re.findall(r"GLIBC_(\d+)\.(\d+)", out)]
    if not found:
        raise SystemExit(f"pypkg: {path} needs no glibc symbol: not a program of this build?")
    return max(found)


def needed_libraries(path: str) -> List[str]:
    out = subprocess.run(["objdump", "-p", path], check=True, capture_output=True,
                         text=True).stdout
    return re.findall(r"^\s*NEEDED\s+(\S+)", out, re.M)


# The libraries a manylinux wheel may need from the system (PEP 600: glibc's).
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                   "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def wheel_tags(elf_files: List[str]) -> Tuple[str, str, str]:
    soabi = sysconfig.get_config_var("SOABI") or ""
    m = re.match(r"cpython-(\d+[a-z]*)-", soabi)
    if platform.python_implementation() != "CPython" or m is None:
        raise SystemExit(f"pypkg: the extension is built for CPython, not {sys.version}")
    pytag = "cp%d%d" % sys.version_info[:2]
    abitag = "cp" + m.group(1)
    libc, _ = platform.libc_ver()
    arch = platform.machine()
    for f in elf_files:
        extra = [lib for lib in needed_libraries(f) if lib not in GLIBC_LIBRARIES]
        if extra:
            raise SystemExit(f"pypkg: {f} needs {', '.join(extra)}: the packages link "
                             "everything but glibc statically (docs/packaging.md)")
    if libc != "glibc":
        return pytag, abitag, f"linux_{arch}"
    major, minor = max(glibc_needed(f) for f in elf_files)
    return pytag, abitag, f"manylinux_{major}_{minor}_{arch}"


def record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def remove_replaced(outdir: str, pattern: str, keep: str) -> None:
    for old in glob.glob(os.path.join(outdir, pattern)):
        if os.path.abspath(old) != os.path.abspath(keep):
            os.unlink(old)


def zip_entry(z: zipfile.ZipFile, arcname: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(arcname, date_time=time.localtime(time.time())[:6])
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def build_wheel(outdir: str, version: str, pkgdir: str, extension: str, daemon: str,
                tsctl: str) -> str:
    pytag, abitag, plat = wheel_tags([extension, daemon, tsctl])
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    files: List[Tuple[str, bytes, int]] = []
    for name in sorted(os.listdir(pkgdir)):
        path = os.path.join(pkgdir, name)
        if not os.path.isfile(path) or not name.endswith((".py", ".pyi", ".typed")):
            continue
        data = open(path, "rb").read().replace(b"@VERSION@", version.encode())
        files.append((f"{NAME}/{name}", data, 0o644))
    files.append((f"{NAME}/_native{suffix}", open(extension, "rb").read(), 0o755))
    files.append((f"{NAME}/bin/toolscored", open(daemon, "rb").read(), 0o755))
    files.append((f"{NAME}/bin/tsctl", open(tsctl, "rb").read(), 0o755))
    distinfo = f"{NAME}-{version}.dist-info"
    wheel_meta = (f"Wheel-Version: 1.0\nGenerator: toolscored make dist\n"
                  f"Root-Is-Purelib: false\nTag: {pytag}-{abitag}-{plat}\n")
    files += [(f"{distinfo}/METADATA", metadata(version).encode(), 0o644),
              (f"{distinfo}/WHEEL", wheel_meta.encode(), 0o644),
              (f"{distinfo}/entry_points.txt", ENTRY_POINTS.encode(), 0o644),
              (f"{distinfo}/top_level.txt", f"{NAME}\n".encode(), 0o644)]
    record = [record_line(a, d) for a, d, _ in files] + [f"{distinfo}/RECORD,,"]
    files.append((f"{distinfo}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, f"{NAME}-{version}-{pytag}-{abitag}-{plat}.whl")
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w") as z:
        for arcname, data, mode in files:
            zip_entry(z, arcname, data, mode)
    os.replace(tmp, out)
    remove_replaced(outdir, f"{NAME}-*-{pytag}-{abitag}-*.whl", out)
    return out


def build_sdist(outdir: str, version: str, root: str, paths: List[str]) -> str:
    base = f"{NAME}-{version}"
    members: Dict[str, str] = {}
    for p in paths:
        src, _, dest = p.partition("=")
        members[dest or src] = os.path.join(root, src)
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, f"{base}.tar.gz")
    tmp = out + ".part"
    now = int(time.time())

    def add_bytes(t: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
        info = tarfile.TarInfo(f"{base}/{name}")
        info.size, info.mode, info.mtime = len(data), mode, now
        t.addfile(info, io.BytesIO(data))

    with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as t:
        add_bytes(t, "PKG-INFO", metadata(version).encode())
        for dest in sorted(members):
            src = members[dest]
            mode = 0o755 if os.access(src, os.X_OK) else 0o644
            add_bytes(t, dest, open(src, "rb").read(), mode)
    os.replace(tmp, out)
    remove_replaced(outdir, f"{NAME}-*.tar.gz", out)
    return out


def main(argv: List[str]) -> None:
    if len(argv) >= 8 and argv[1] == "wheel":
        print(build_wheel(*argv[2:8]))
    elif len(argv) >= 5 and argv[1] == "sdist":
        print(build_sdist(argv[2], argv[3], argv[4], argv[5:]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)

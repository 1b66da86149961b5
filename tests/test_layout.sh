#!/bin/sh
# The layout of the sources holds (scripts/layout.py, docs/architecture.md):
# arrows point down only, internal headers stay in their folder, no folder
# over 20 C files, no C file over 900 lines, no circle between files (the
# build's objects, nm). Run on the objects of the build under test.
set -u
src=${TS_SOURCE_DIR:-.}
build=${TS_BUILD_DIR:-build}
cd "$src" || exit 1
exec /usr/bin/python3 scripts/layout.py "$build"

#!/bin/sh
# Differential tests of the Python package against the reference tool
# (shims/python/tests/compat): snapshot files and the programmatic API
# written by each and read by the other, one scenario through both state
# machines, both pytest plugins on one project. The reference, pinned
# below, is installed from PyPI into a venv under $BUILD (made once, kept
# while it holds that version), over Debian's python3 with its site
# packages (pytest); the package under test is $BUILD/python, as in
# tests/test_python.sh, which runs them.
set -eu
BUILD=${BUILD:-build}
B=$(cd "$BUILD" && pwd)
REFERENCE=tool-scorer
REFERENCE_VERSION=1.10.0
venv="$B/compat-venv"
if ! "$venv/bin/python" -c "import sys, toolscore
sys.exit(toolscore.__version__ != '$REFERENCE_VERSION')" 2>/dev/null; then
	rm -rf "$venv"
	/usr/bin/python3 -m venv --system-site-packages "$venv" ||
		{ echo "test_python_compat: cannot make a venv (python3-venv: scripts/deps.sh test)" >&2; exit 1; }
	if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
		--timeout 20 --retries 1 "$REFERENCE==$REFERENCE_VERSION" >"$venv.log" 2>&1; then
		echo "test_python_compat: cannot install the reference from PyPI" \
			"(pip install $REFERENCE==$REFERENCE_VERSION): $(tail -n 1 "$venv.log")" >&2
		rm -rf "$venv"
		exit 1
	fi
fi
export TSPY_PYTHON="$venv/bin/python" TSPY_TESTS=compat TSPY_COMPAT="$REFERENCE_VERSION"
# The outer pytest loads our plugin only (its tests drive both plugins in
# pytester runs of their own).
export TS_PYTEST_ARGS="-p no:toolscore ${TS_PYTEST_ARGS:-}"
exec sh "${TS_SOURCE_DIR:-.}/tests/test_python.sh"

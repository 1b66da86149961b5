#!/bin/sh
# The sdist as a user installs it (docs/packaging.md), on a second Python
# with pytest 7: a fresh virtualenv of another CPython of this machine (the
# oldest from 3.9 on; the Makefile's own when there is none) gets the
# pinned pytest 7 and pytest-xdist from PyPI, then `pip install --no-index`
# of the sdist from dist/ builds the wheel with make through the package's
# own backend, downloading nothing; the plugin's tests pass there, served
# by that build's daemon. The wheel of another Python is refused by pip in
# one line, and one forced into this Python stops pytest with one line.
. "$(dirname "$0")/tsctl_helpers.sh"
. "$(dirname "$0")/dist/lib.sh"

SDIST=$(dist_file "toolscored-$VERSION.tar.gz")
echo "$NAME: $(basename "$SDIST") ($(du -k "$SDIST" | cut -f1) KiB, $(tar tzf "$SDIST" | wc -l) files)"
t 0 tar tzf "$SDIST"
for f in PKG-INFO pyproject.toml Makefile VERSION mk/dist.mk scripts/dist/toolscored_build.py \
	third_party/libuv/libuv1_1.44.2.orig.tar.gz shims/python/src/tspy_module.c; do
	out_has "toolscored-$VERSION/$f"
done
out_lacks "/tests/"
out_lacks "/shims/node/"

# The Python: the oldest other CPython (3.9 on, with its headers and venv).
MAIN=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PY=$(for cand in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3 /usr/bin/python3.[0-9]* \
	/usr/local/bin/python3.[0-9]*; do
	[ -x "$cand" ] || continue
	v=$("$cand" -c 'import os, sys, sysconfig, venv
ok = sys.implementation.name == "cpython" and sys.version_info >= (3, 9) and os.path.exists(
    os.path.join(sysconfig.get_paths()["include"], "Python.h"))
print("%d.%d" % sys.version_info[:2] if ok else "")' 2>/dev/null) || continue
	[ -n "$v" ] && [ "$v" != "$MAIN" ] && echo "$v $cand"
done | sort -V | head -1 | cut -d' ' -f2)
if [ -z "$PY" ]; then
	echo "$NAME: no other CPython 3.9+ with its headers on this machine: the sdist is tested on /usr/bin/python3 $MAIN"
	PY=/usr/bin/python3
elif ! pypi_reachable; then
	echo "$NAME: PyPI is not reachable: the sdist is tested on /usr/bin/python3 $MAIN, whose system pytest the venv can see"
	PY=/usr/bin/python3
fi
echo "$NAME: $("$PY" -c 'import sys; print(sys.version.split()[0])') ($PY)"

VENV="$WORK/venv"
make_venv "$PY" "$VENV" "$S/tests/dist/requirements-pytest7.txt" || finish
"$VENV_PY" -m pytest --version
start=$(date +%s)
t 0 env PATH="$CLEAN_PATH" "$VENV_PY" -m pip install --no-index "$SDIST" || {
	printf '%s\n' "$OUT" | tail -30 >&2
	finish
}
echo "$NAME: pip built and installed the sdist in $(($(date +%s) - start)) s"
trap 'stop_autostarted "$VENV/bin/tsctl"; cleanup' EXIT
SITE=$("$VENV_PY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
t 0 "$VENV/bin/tsctl" --version && same "$OUT" "tsctl $VERSION" "the sdist build's tsctl"
t 0 "$VENV_PY" -c 'import toolscored; print(toolscored.__version__)' && same "$OUT" "$VERSION" "toolscored.__version__"
ext=$(ls "$SITE"/toolscored/_native*.so)
glibc_only "$SITE/toolscored/bin/toolscored" "$ext"
same "$(nm -D --defined-only "$ext" | awk '{print $3}')" "PyInit__native" "the sdist build's exported symbols"

plugin_tests "$SITE"

# ---- the wheel of another Python ---------------------------------------------
WTAG=$(/usr/bin/python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
TAG=$("$VENV_PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
if [ "$WTAG" != "$TAG" ]; then
	WHEEL=$(dist_file "toolscored-$VERSION-$WTAG-$WTAG-*.whl")
	t 1 "$VENV_PY" -m pip install --no-index --force-reinstall "$WHEEL"
	err_has "$(basename "$WHEEL") is not a supported wheel on this platform."
	# forced in anyway (a site copied from another Python): pytest stops
	# with one line, and the API names say the same
	t 0 "$VENV_PY" -m pip install -q --no-index --no-deps --target "$WORK/forced" \
		--platform "$(echo "$WHEEL" | sed 's/.*-\(manylinux[^.]*\)\.whl$/\1/')" \
		--python-version "${WTAG#cp}" --implementation cp --abi "$WTAG" --only-binary=:all: "$WHEEL"
	P="$WORK/project"
	cp -R "$S/tests/dist/python-project" "$P"
	t 4 sh -c "cd '$P' && PATH='$CLEAN_PATH' PYTHONPATH='$WORK/forced' '$VENV_PY' -m pytest -q"
	printf '%s\n%s\n' "$OUT" "$ERR" | grep -v '^$' >"$WORK/forced.out"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$WORK/forced.out")" = 1 ] || { fail "pytest said more than one line:"; cat "$WORK/forced.out" >&2; }
	err_has "ERROR: toolscored $VERSION in $WORK/forced/toolscored was built for another Python (_native.cpython-${WTAG#cp}-"
	err_has "install toolscored for this Python (pip install the wheel made for it, or the sdist, into this environment)"
	t 1 env PYTHONPATH="$WORK/forced" "$VENV_PY" -c 'from toolscored import SnapshotStore'
	err_has "ImportError: toolscored $VERSION in $WORK/forced/toolscored was built for another Python"
	# and so do the modules a migrating user imports (toolscored.snapshots
	# for toolscore.snapshots)
	for mod in toolscored.snapshots toolscored.api; do
		t 1 env PYTHONPATH="$WORK/forced" "$VENV_PY" -c "import $mod"
		err_has "ImportError: toolscored $VERSION in $WORK/forced/toolscored was built for another Python"
	done
else
	echo "$NAME: this Python is the wheel's ($TAG): the refusal of another Python's wheel is not tested here"
fi
finish

#!/bin/sh
# The Python wheel as a user installs it (docs/packaging.md): what ships
# needs glibc only (ldd) and its extension exports only PyInit__native
# (nm -D); a fresh virtualenv of the Makefile's Python gets the pinned
# current pytest and pytest-xdist from PyPI and the wheel from dist/ with
# --no-index; the plugin's own tests pass there, served by the package's own
# daemon; a project records, approves (the venv's tsctl), replays and
# drifts under `python -m pytest -n 2` from a venv that is not activated,
# with PATH free of the build and of any installed toolscored, and the
# accept command the failure prints, pasted into a shell, accepts it; bad
# installations say in one line what is wrong; pip uninstall leaves nothing.
. "$(dirname "$0")/tsctl_helpers.sh"
. "$(dirname "$0")/dist/lib.sh"

PY=/usr/bin/python3
TAG=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
WHEEL=$(dist_file "toolscored-$VERSION-$TAG-$TAG-*.whl")
echo "$NAME: $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"

# ---- what ships ------------------------------------------------------------
mkdir -p "$WORK/whl"
python3 -m zipfile -e "$WHEEL" "$WORK/whl" # (modes are not kept: nothing is run from here)
python3 -m zipfile -l "$WHEEL"
PKG="$WORK/whl/toolscored"
ext=$(ls "$PKG"/_native*.so)
glibc_only "$PKG/bin/toolscored" "$PKG/bin/tsctl" "$ext"
pie "$PKG/bin/toolscored" "$PKG/bin/tsctl"
echo "nm -D --defined-only $(basename "$ext"):"
nm -D --defined-only "$ext" | sed 's/^/    /'
same "$(nm -D --defined-only "$ext" | awk '{print $3}')" "PyInit__native" "the extension's exported symbols"
for exe in toolscored tsctl; do
	echo "nm -D --defined-only bin/$exe: $(nm -D --defined-only "$PKG/bin/$exe" 2>&1 | wc -l) symbol(s)"
done
grep -q "^Tag: $TAG-$TAG-manylinux_2_[0-9]*_$(uname -m)$" "$WORK/whl/toolscored-$VERSION.dist-info/WHEEL" ||
	fail "the wheel's tag: $(grep ^Tag "$WORK/whl/toolscored-$VERSION.dist-info/WHEEL")"

# ---- a fresh venv: the pinned test tools, then the wheel, nothing downloaded --
VENV="$WORK/venv"
make_venv "$PY" "$VENV" "$S/tests/dist/requirements-pytest-current.txt" || finish
SITE=$("$VENV_PY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
venv_files "$VENV" >"$WORK/before"
# as the README says: --find-links over dist/ takes this Python's wheel, also
# beside another interpreter's wheel and the sdist (nothing is built)
mkdir "$WORK/links"
cp "$WHEEL" "$(dist_file "toolscored-$VERSION.tar.gz")" "$WORK/links/"
OTHER=cp39
[ "$TAG" = cp39 ] && OTHER=cp310
cp "$WHEEL" "$WORK/links/$(basename "$WHEEL" | sed "s/-$TAG-$TAG-/-$OTHER-$OTHER-/")"
t 0 "$VENV_PY" -m pip install --no-index --find-links "$WORK/links" toolscored || finish
out_has "$(basename "$WHEEL")"
out_lacks "Building wheel"
trap 'stop_autostarted "$VENV/bin/tsctl"; cleanup' EXIT
t 0 "$VENV/bin/tsctl" --version && same "$OUT" "tsctl $VERSION" "the console script tsctl"
t 0 "$VENV/bin/toolscored" --version && same "$OUT" "toolscored $VERSION" "the console script toolscored"
t 0 "$VENV_PY" -c 'import toolscored; print(toolscored.__version__)' && same "$OUT" "$VERSION" "toolscored.__version__"
t 0 "$VENV_PY" -m pip show toolscored && out_has "Version: $VERSION"
"$VENV_PY" -m pytest --version

# ---- the plugin's own tests, on the installed package -------------------------
plugin_tests "$SITE"

# ---- a user's project: record -> approve -> replay -> drift under -n 2 -------
# The venv is not activated (PATH has no venv/bin), as IDEs and CI run it.
P="$WORK/project"
cp -R "$S/tests/dist/python-project" "$P"
git -C "$P" init -q
pyt() { (cd "$P" && env PATH="$CLEAN_PATH" "$VENV_PY" -m pytest -n 2 "$@"); }
t 0 pyt
out_has "toolscore: 4 snapshots created (pending approval)"
# the commands it prints name the venv's tsctl, which PATH has not
out_has "then approve with \`$VENV/bin/tsctl approve 'test_agent.py::test_books_a_flight[NYC]'\`"
same "$(served_by "$VENV/bin/tsctl")" "$(realpath "$SITE/toolscored/bin/toolscored")" "the auto-started daemon"
t 0 sh -c "cd '$P' && PATH='$CLEAN_PATH' '$VENV/bin/tsctl' approve --all"
out_has "Approved 4 snapshot(s)."
t 0 pyt
out_has "toolscore: 4 passed"
AGENT_DRIFT=1 t 1 pyt
out_has "toolscore: 3 passed, 1 failed"
out_has "Expected vs Actual Tool Calls"
out_has "destination: \"LA\" → \"SFO\""
out_lacks "Traceback"
# the accept command, pasted into a shell whose PATH has no tsctl, accepts it
line=$(paste_line "$OUT" "To accept the observed calls:")
same "$line" "$VENV/bin/tsctl accept 'test_agent.py::test_books_a_flight[LA]'" "the accept command"
t 0 env -C "$P" PATH="$CLEAN_PATH" bash -c "$line"
out_has "Accepted 'test_agent.py::test_books_a_flight[LA]'"
AGENT_DRIFT=1 t 0 pyt
out_has "toolscore: 4 passed"
TOOLSCORE_RECORD_UPDATE=1 t 0 pyt
out_has "toolscore: 1 updated, 3 unchanged"
# the venv's own pytest script, too (one with pytest installed in it)
if [ -x "$VENV/bin/pytest" ]; then
	t 0 sh -c "cd '$P' && PATH='$CLEAN_PATH' '$VENV/bin/pytest' -q"
	out_has "toolscore: 4 passed"
fi
t 0 ls "$P/.toolscore/snapshots"
stop_autostarted "$VENV/bin/tsctl"
# a daemon of another build: replaced when a client started it and it is
# idle, else used and said once
another_build_round pyt "$VENV/bin/tsctl" "$SITE/toolscored/bin/toolscored"

# ---- bad installations: one line naming what was tried and what to do --------
one_error_line() { # TEXT: the test's error is one line holding TEXT, no traceback
	CHECKS=$((CHECKS + 1))
	n=$(printf '%s\n' "$OUT" | grep -c "^E  .*$1")
	[ "$n" -ge 1 ] || { fail "no error line with: $1"; printf '%s\n' "$OUT" | tail -20 >&2; }
	case "$OUT" in *Traceback* | *toolscored/plugin.py* | *toolscored/api.py*) fail "a traceback from inside the plugin" ;; esac
}
TOOLSCORED="$WORK/nothing" t 1 pyt -n 0 -k NYC
one_error_line "TOOLSCORED=$WORK/nothing is not an executable file (point it at a toolscored executable, or unset it"
mv "$SITE/toolscored/bin/toolscored" "$WORK/toolscored.moved"
t 1 pyt -n 0 -k NYC
one_error_line "toolscored not found: TOOLSCORED is not set, $SITE/toolscored/bin/toolscored does not exist, and PATH has no toolscored (reinstall"
t 127 env PATH="$CLEAN_PATH" "$VENV/bin/toolscored" --version
same "$ERR" "toolscored: $SITE/toolscored/bin/toolscored is missing (toolscored $VERSION); reinstall the package: pip install --force-reinstall with the wheel or sdist it came from" "the console script of a missing executable"
mv "$WORK/toolscored.moved" "$SITE/toolscored/bin/toolscored"
chmod 644 "$SITE/toolscored/bin/toolscored" "$SITE/toolscored/bin/tsctl"
t 1 pyt -n 0 -k NYC
one_error_line "$SITE/toolscored/bin/toolscored is not executable (mode 0644), and PATH has no toolscored"
t 126 env PATH="$CLEAN_PATH" "$VENV/bin/tsctl" status
same "$ERR" "tsctl: $SITE/toolscored/bin/tsctl is not executable (toolscored $VERSION); reinstall the package: pip install --force-reinstall with the wheel or sdist it came from" "the console script of a non-executable tsctl"
chmod 755 "$SITE/toolscored/bin/toolscored" "$SITE/toolscored/bin/tsctl"
# a machine whose glibc is older than the wheel's manylinux tag says
t 1 "$VENV_PY" -m pip install --no-index --target "$WORK/old-glibc" --platform manylinux2014_$(uname -m) \
	--python-version "${TAG#cp}" --implementation cp --abi "$TAG" --only-binary=:all: "$WHEEL"
err_has "is not a supported wheel on this platform."

# ---- pip uninstall leaves nothing behind --------------------------------------
t 0 "$VENV_PY" -m pip uninstall -y toolscored
venv_files "$VENV" >"$WORK/after"
CHECKS=$((CHECKS + 1))
if ! diff "$WORK/before" "$WORK/after" >"$WORK/diff"; then
	fail "pip uninstall left files behind:"
	cat "$WORK/diff" >&2
fi
CHECKS=$((CHECKS + 1))
left=$(find "$VENV" -name '*toolscore*' -o -name tsctl)
[ -z "$left" ] || fail "pip uninstall left: $left"
finish

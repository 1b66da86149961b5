#!/bin/sh
# The npm tarballs as a user installs them (docs/packaging.md): the package
# toolscored (JavaScript, its CommonJS build inside, no install script) and
# the platform package with the two static executables (glibc only, PIE);
# `npm pack` works from a clean checkout of shims/node once `npm ci` ran; a
# fresh copy of a CommonJS project (tests/dist/node-project) installs its
# runners from its lock file and the two tarballs, and records, approves
# (`npx tsctl approve --all`), replays and drifts with Vitest on 3 workers
# and with Jest, served by the platform package's daemon, with PATH free of
# the build and of any installed toolscored, and the failure's accept
# command (`npx tsctl accept '...'`) pasted into a shell accepts the drift;
# a missing, non-executable or
# mismatched platform package and $TOOLSCORED pointing at nothing each say
# in one line what was tried.
. "$(dirname "$0")/tsctl_helpers.sh"
. "$(dirname "$0")/dist/lib.sh"

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
	{ echo "$NAME: node and npm are missing (scripts/deps.sh test installs them)" >&2; exit 1; }
MAIN=$(dist_file "toolscored-$VERSION.tgz")
PLATFORM_TGZ=$(dist_file "toolscored-linux-*-$VERSION.tgz")
PLATFORM=$(basename "$PLATFORM_TGZ" "-$VERSION.tgz")
echo "$NAME: $(basename "$MAIN") ($(du -k "$MAIN" | cut -f1) KiB), $(basename "$PLATFORM_TGZ") ($(du -k "$PLATFORM_TGZ" | cut -f1) KiB)"

# ---- what ships ------------------------------------------------------------
mkdir -p "$WORK/main" "$WORK/platform"
tar xzf "$MAIN" -C "$WORK/main"
tar xzf "$PLATFORM_TGZ" -C "$WORK/platform"
tar tzvf "$MAIN" | awk '{print $1, $3, $6}'
tar tzvf "$PLATFORM_TGZ" | awk '{print $1, $3, $6}'
for f in dist/cjs/index.js dist/cjs/jest/setup.js src/index.js src/vitest/setup.js types/index.d.ts bin/tsctl.js bin/toolscored.js; do
	CHECKS=$((CHECKS + 1))
	[ -f "$WORK/main/package/$f" ] || fail "the tarball has no $f"
done
t 0 node -e '
const [main, plat, version, platform] = process.argv.slice(1).map((a, i) => i < 2 ? require(a) : a);
const problems = [];
if (main.version !== version) problems.push(`version ${main.version}`);
if (JSON.stringify(main.optionalDependencies) !== JSON.stringify({ [platform]: version }))
  problems.push(`optionalDependencies ${JSON.stringify(main.optionalDependencies)}`);
for (const s of ["preinstall", "install", "postinstall", "prepare"])
  if (main.scripts && main.scripts[s]) problems.push(`a ${s} script`);
if (main.bin.tsctl !== "./bin/tsctl.js" || main.bin.toolscored !== "./bin/toolscored.js") problems.push("bin");
if (plat.version !== version || plat.name !== platform) problems.push(`platform ${plat.name} ${plat.version}`);
if (!plat.os || !plat.cpu || JSON.stringify(plat.libc) !== "[\"glibc\"]") problems.push("platform os/cpu/libc");
if (plat.scripts) problems.push("platform scripts");
if (problems.length) { console.error(problems.join("; ")); process.exit(1); }
' "$WORK/main/package/package.json" "$WORK/platform/package/package.json" "$VERSION" "$PLATFORM"
glibc_only "$WORK/platform/package/bin/toolscored" "$WORK/platform/package/bin/tsctl"
pie "$WORK/platform/package/bin/toolscored" "$WORK/platform/package/bin/tsctl"
CHECKS=$((CHECKS + 1))
[ -x "$WORK/platform/package/bin/toolscored" ] && [ -x "$WORK/platform/package/bin/tsctl" ] ||
	fail "the platform package's executables are not executable"

# ---- npm pack from a clean checkout of shims/node, after npm ci ---------------
mkdir -p "$WORK/checkout"
(cd "$S" && git ls-files -z --cached --others --exclude-standard shims/node | xargs -0 tar cf - 2>/dev/null) |
	tar xf - -C "$WORK/checkout" 2>/dev/null
if [ -f "$WORK/checkout/shims/node/package.json" ]; then
	t 0 sh -c "cd '$WORK/checkout/shims/node' && npm ci --no-audit --no-fund --prefer-offline --loglevel=error && npm pack --dry-run --json --loglevel=error"
	OUT=$(printf '%s' "$OUT" | grep '"path"' | tr -d ' ,')
	out_has '"path":"dist/cjs/index.js"'
	out_has '"path":"bin/tsctl.js"'
else
	echo "$NAME: not a git checkout: npm pack of a clean checkout not tested"
fi

# ---- a fresh project: its runners from the lock, then the two tarballs --------
P="$WORK/project"
cp -R "$S/tests/dist/node-project" "$P"
start=$(date +%s)
t 0 sh -c "cd '$P' && npm ci --no-audit --no-fund --prefer-offline --loglevel=error" || finish
t 0 sh -c "cd '$P' && npm install --no-save --no-audit --no-fund --prefer-offline --loglevel=error '$MAIN' '$PLATFORM_TGZ'" || finish
echo "$NAME: npm installed the project in $(($(date +%s) - start)) s"
PKGBIN="$P/node_modules/$PLATFORM/bin"
same "$(node -p "require('$P/node_modules/toolscored/package.json').version")" "$VERSION" "the installed toolscored"
same "$(sha256sum <"$PKGBIN/toolscored")" "$(sha256sum <"$WORK/platform/package/bin/toolscored")" "the installed daemon is the tarball's"
t 0 sh -c "cd '$P' && node -e 'console.log(require(\"toolscored\").VERSION)'"
same "$OUT" "$VERSION" "require('toolscored').VERSION (CommonJS)"
t 0 sh -c "cd '$P' && node --input-type=module -e 'import { VERSION } from \"toolscored\"; console.log(VERSION)'"
same "$OUT" "$VERSION" "import { VERSION } from 'toolscored' (ES module)"
trap 'stop_autostarted "$PKGBIN/tsctl"; cleanup' EXIT

export TOOLSCORED_EXPECTED_VERSION="$VERSION" NO_COLOR=1
inp() { (cd "$P" && env PATH="$CLEAN_PATH" "$@"); }
summary() { # TEXT: the one summary line of the last run
	CHECKS=$((CHECKS + 1))
	n=$(printf '%s\n%s\n' "$OUT" "$ERR" | grep -c '^toolscore: [0-9]')
	[ "$n" = 1 ] || fail "$n summary lines, wanted one"
	case "$OUT$ERR" in *"$1"*) ;; *) fail "no '$1' in the output"; printf '%s\n%s\n' "$OUT" "$ERR" | tail -30 >&2 ;; esac
}
workers() { # RUNNER: several worker processes ran the tests
	CHECKS=$((CHECKS + 1))
	n=$(sort -u "$WORK/pids" | wc -l)
	[ "$n" -ge 2 ] || fail "$1 ran in $n worker process(es)"
	rm -f "$WORK/pids"
}
vitest() { inp npx vitest run --maxWorkers=3 --minWorkers=3 "$@"; }
jest() { inp npx jest --maxWorkers=3 --cacheDirectory "$WORK/jest-cache" "$@"; }
for runner in vitest jest; do
	PIDS_FILE="$WORK/pids" t 0 $runner
	summary "toolscore: 4 snapshots created (pending approval)"
	workers "$runner"
	[ "$runner" = vitest ] && same "$(served_by "$PKGBIN/tsctl")" "$(realpath "$PKGBIN/toolscored")" "the daemon the Node client started"
	t 0 inp npx tsctl approve --all
	out_has "Approved 4 snapshot(s)."
	# (Jest runs a second time in band: its first run was fast)
	PIDS_FILE="$WORK/pids" t 0 $runner
	summary "toolscore: 4 passed"
	[ "$runner" = vitest ] && workers "$runner"
	rm -f "$WORK/pids"
	AGENT_DRIFT=1 t 1 $runner
	summary "toolscore: 3 passed, 1 failed"
	case "$OUT$ERR" in *"Expected vs Actual Tool Calls"*) ;; *) fail "$runner: no drift report" ;; esac
	case "$OUT$ERR" in *"CJS build of Vite's Node API is deprecated"*) fail "Vite warned about its CommonJS API" ;; esac
	# the accept command it prints, pasted into a shell in the project, accepts it
	line=$(paste_line "$OUT$ERR" "To accept the observed calls:")
	case "$line" in "npx tsctl accept '"*) ;; *) fail "$runner: the accept command: $line" ;; esac
	t 0 inp bash -c "$line"
	out_has "Accepted 1 snapshot(s)."
	AGENT_DRIFT=1 t 0 $runner
	summary "toolscore: 4 passed"
	TOOLSCORE_RECORD_UPDATE=1 t 0 $runner
	summary "toolscore: 1 updated, 3 unchanged"
done
t 0 inp npx tsctl --version
same "$OUT" "tsctl $VERSION" "npx tsctl --version"
t 0 inp npx tsctl status
out_lacks "another build"
t 0 inp npx tsctl stop
# a daemon of another build: replaced when a client started it and it is
# idle, else used and said once
another_build_round vitest "$PKGBIN/tsctl" "$PKGBIN/toolscored"

# ---- bad input: one line naming what was tried -------------------------------
has() {
	CHECKS=$((CHECKS + 1))
	case "$OUT$ERR" in *"$1"*) return 0 ;; esac
	fail "no '$1' in the output"
	printf '%s\n%s\n' "$OUT" "$ERR" | tail -20 >&2
}
TOOLSCORED="$WORK/nothing" t 1 vitest
has "TOOLSCORED=$WORK/nothing is not an executable file (point it at a toolscored executable, or unset it"
chmod 644 "$PKGBIN/toolscored"
t 1 vitest
has "toolscored not found: TOOLSCORED is not set, $PKGBIN/toolscored is not executable, and PATH has no toolscored"
chmod 755 "$PKGBIN/toolscored"
cp "$P/node_modules/$PLATFORM/package.json" "$WORK/platform.json"
sed -i "s/\"version\": \"[^\"]*\"/\"version\": \"0.0.1\"/" "$P/node_modules/$PLATFORM/package.json"
t 1 vitest
has "$PLATFORM 0.0.1 is another build than toolscored $VERSION (install both tarballs of one make dist)"
cp "$WORK/platform.json" "$P/node_modules/$PLATFORM/package.json"
mv "$P/node_modules/$PLATFORM" "$WORK/platform.moved"
t 1 vitest
has "toolscored not found: TOOLSCORED is not set, the platform package $PLATFORM is not installed"
t 127 inp npx tsctl --version
same "$ERR" "tsctl: tsctl not found: the platform package $PLATFORM is not installed (npm installs it with toolscored, as an optional dependency, unless optional dependencies are omitted or no package exists for this platform), and PATH has no tsctl (reinstall toolscored)" "npx tsctl without the platform package"
mv "$WORK/platform.moved" "$P/node_modules/$PLATFORM"

# ---- npm uninstall of both packages leaves nothing of them -------------------
t 0 inp npm uninstall --no-audit --no-fund --prefer-offline --loglevel=error toolscored "$PLATFORM"
CHECKS=$((CHECKS + 1))
left=$(cd "$P" && ls -d node_modules/toolscored* node_modules/.bin/tsctl node_modules/.bin/toolscored 2>/dev/null)
[ -z "$left" ] || fail "npm uninstall left: $left"
finish

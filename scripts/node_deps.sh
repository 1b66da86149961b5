#!/bin/sh
# Installs the npm packages of the Node.js package and its test projects
# from their committed package-lock.json files (npm ci), when what is
# installed is not what the locks (and, for the test projects, which install
# a packed copy of shims/node, the package's files) say.
# shims/node's CommonJS build (dist/cjs, which the test projects' packed
# copies carry) is made again each time (esbuild: a fraction of a second).
# Usage: scripts/node_deps.sh [package]   (from the repository root;
# "package": shims/node only, as make dist-npm needs it)
set -eu
command -v node >/dev/null && command -v npm >/dev/null || {
	echo "node and npm are needed (scripts/deps.sh test installs them)" >&2
	exit 1
}
pkg_hash=$(find shims/node/package.json shims/node/bin shims/node/src shims/node/types shims/node/scripts -type f | sort | xargs cat | sha256sum | cut -c1-16)
install() {
	dir=$1
	extra=$2
	stamp="$dir/node_modules/.toolscore-stamp"
	want="$(sha256sum "$dir/package-lock.json" | cut -c1-16)$extra"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	echo "npm ci in $dir" >&2
	(cd "$dir" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error >&2)
	echo "$want" >"$stamp"
}
install shims/node ""
(cd shims/node && node scripts/build-cjs.mjs)
[ "${1:-}" = package ] && exit 0
install tests/node/vitest-project "-$pkg_hash"
install tests/node/jest-project "-$pkg_hash"

#!/bin/sh
# Installs the Debian packages toolscored needs to build and test, when missing.
# Usage: scripts/deps.sh [build|dist|test]
#   build: compilers and libraries (make all, make run)
#   dist:  build + Node.js and npm (make dist: the npm tarballs)
#   test:  build + the tools the test suite drives (make check)
set -eu
want=${1:-build}
pkgs="build-essential pkg-config libuv1-dev libjson-c-dev libmsgpack-dev check libmd-dev python3-dev"
if [ "$want" = test ]; then
	pkgs="$pkgs valgrind tmux systemd man-db clang clang-format libclang-rt-14-dev util-linux procps python3 strace python3-pytest python3-pytest-xdist python3-pydantic libxml2-utils"
	# The package tests' virtualenvs (tests/test_dist_python.sh).
	pkgs="$pkgs python3-venv"
	# Headless Chromium for the HTML report's browser tests (tests/html/).
	pkgs="$pkgs chromium"
fi
# Node.js and npm for the Node package's tests (shims/node, tests/test_node*.sh)
# and its tarballs (make dist), only when the machine has none (a Node
# installed otherwise is used as it is).
if [ "$want" = test ] || [ "$want" = dist ]; then
	command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
fi
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "toolscored needs these Debian packages:$missing" >&2
	echo "install them with: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2

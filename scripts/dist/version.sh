#!/bin/sh
# Prints the version of this build. VERSION holds the release; a build is
# that release only from a checkout of its tag v<VERSION> whose tracked
# files are unchanged. Any other build carries its commit, as a PEP 440
# local version that is also semver build metadata (docs/packaging.md):
#   0.1.0                               the tag v0.1.0, clean
#   0.1.0+g1a2b3c4d5e6f                 commit 1a2b3c4d5e6f..., clean
#   0.1.0+g1a2b3c4d5e6f.dirty9f86d081   the same with changes to tracked
#                                       files (a hash of the diff, so two
#                                       different edits never look alike)
# A source tree that is no git checkout of its own (an sdist) carries the
# version it was made from in PKG-INFO; one with neither says "+unknown".
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
base=$(sed -n '1{s/[[:space:]]//g;p;}' "$root/VERSION" 2>/dev/null || true)
case "$base" in
'' | *[!0-9.]* | .* | *. | *..*)
	echo "version.sh: $root/VERSION must hold a release version like 1.2.3 (found '$base')" >&2
	exit 1
	;;
esac
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null || true)
if [ "$top" = "$root" ] && head=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null); then
	dirty=""
	if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		dirty=".dirty$(git -C "$root" diff HEAD --binary 2>/dev/null | sha256sum | cut -c1-8)"
	fi
	if [ -z "$dirty" ] && [ "$(git -C "$root" tag --points-at HEAD 2>/dev/null | grep -cx "v$base")" = 1 ]; then
		echo "$base"
	else
		echo "$base+g$head$dirty"
	fi
elif [ -f "$root/PKG-INFO" ]; then
	v=$(sed -n 's/^Version: *//p' "$root/PKG-INFO" | head -1)
	case "$v" in
	"$base" | "$base+"*) echo "$v" ;;
	*)
		echo "version.sh: $root/PKG-INFO says version '$v', VERSION says '$base'" >&2
		exit 1
		;;
	esac
else
	echo "$base+unknown"
fi

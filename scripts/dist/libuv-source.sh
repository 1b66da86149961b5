#!/bin/sh
# The source of the libuv linked into the packages' daemon (docs/packaging.md):
# Debian 12's source package libuv1 1.44.2-1+deb12u1 (the version of the
# libuv1-dev headers the daemon is compiled against), with Debian's patches
# applied, unpacked into DIR/tree. The two archives are taken from
# third_party/libuv/ (an sdist carries them) or DIR/src/, else downloaded from
# the Debian archive into DIR/src/; each must match its SHA-256 below, which
# were checked against Debian's signed bookworm InRelease (Sources.xz).
# DIR/tree/.stamp says which archives the tree was made from.
# Usage: scripts/dist/libuv-source.sh DIR
set -eu
dir=$1
archive=http://deb.debian.org/debian/pool/main/libu/libuv1
orig=libuv1_1.44.2.orig.tar.gz
orig_sha=d79b4b06ef04be85fb890bf39d55942cc64c2e15fd14eaa32dae5dce94485484
deb=libuv1_1.44.2-1+deb12u1.debian.tar.xz
deb_sha=14fc605e7d1520137416fd8c097b58a191be9b07bdbb406f7b39c7894b7d66a5
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir/src"

sha() { sha256sum "$1" | cut -d' ' -f1; }
# fetch NAME SHA: the path of a verified copy of NAME
fetch() {
	for f in "$here/third_party/libuv/$1" "$dir/src/$1"; do
		if [ -f "$f" ]; then
			[ "$(sha "$f")" = "$2" ] && { echo "$f"; return 0; }
			echo "libuv-source: $f does not have the pinned SHA-256 $2; remove it" >&2
			return 1
		fi
	done
	echo "libuv-source: downloading $archive/$1" >&2
	python3 - "$archive/$1" "$dir/src/$1.part" <<'PY' || { echo "libuv-source: cannot download $archive/$1 (the packages' daemon links libuv built from it; an sdist carries it in third_party/libuv/)" >&2; return 1; }
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=60) as r, open(sys.argv[2], "wb") as out:
    out.write(r.read())
PY
	if [ "$(sha "$dir/src/$1.part")" != "$2" ]; then
		echo "libuv-source: $archive/$1 does not have the pinned SHA-256 $2" >&2
		rm -f "$dir/src/$1.part"
		return 1
	fi
	mv "$dir/src/$1.part" "$dir/src/$1"
	echo "$dir/src/$1"
}
o=$(fetch $orig $orig_sha)
d=$(fetch $deb $deb_sha)
stamp="$orig_sha $deb_sha"
[ -f "$dir/tree/.stamp" ] && [ "$(cat "$dir/tree/.stamp")" = "$stamp" ] && exit 0
rm -rf "$dir/tree" "$dir/tree.new"
mkdir -p "$dir/tree.new"
python3 - "$o" "$d" "$dir/tree.new" <<'PY'
import sys, tarfile
orig, deb, out = sys.argv[1:]
safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
for path, strip in ((orig, 1), (deb, 0)):
    with tarfile.open(path) as t:
        for m in t.getmembers():
            parts = m.name.split("/")[strip:]
            if not parts or not parts[0] or m.issym() or m.islnk() or ".." in parts:
                continue
            m.name = "/".join(parts)
            t.extract(m, out, **safe)
PY
(
	cd "$dir/tree.new"
	grep -v '^#' debian/patches/series | while read -r p; do
		[ -n "$p" ] || continue
		patch -p1 -s -N <"debian/patches/$p" || { echo "libuv-source: Debian's patch $p does not apply" >&2; exit 1; }
	done
)
echo "$stamp" >"$dir/tree.new/.stamp"
mv "$dir/tree.new" "$dir/tree"

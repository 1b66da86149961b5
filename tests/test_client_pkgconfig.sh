#!/bin/sh
# libtoolscore-client as an outside program sees it once installed: only the
# public header, the static and shared libraries and the pkg-config file,
# laid out as `make install` lays them out. A small program is built with
# `pkg-config --cflags --libs toolscore-client` (shared) and with --static,
# and each must run and report a clean "unavailable" error for a socket
# nobody serves.
set -u
B=${TS_BUILD_DIR:-build}
S=${TS_SOURCE_DIR:-.}
fail() { echo "test_client_pkgconfig: $*" >&2; exit 1; }
SO=libtoolscore-client.so.$(sed -n 's/^SONAME_MAJOR *:= *//p' "$S/Makefile")
[ "$SO" != libtoolscore-client.so. ] || fail "no SONAME_MAJOR in the Makefile"
for f in "$B/libtoolscore-client.a" "$B/$SO" "$B/libtoolscore-client.so" \
	"$B/toolscore-client.pc" "$B/toolscore-client-uninstalled.pc"; do
	[ -f "$f" ] || fail "$f was not built (run make)"
done
[ -f "$S/client/toolscore-client.pc.in" ] || fail "client/toolscore-client.pc.in is missing"
tmp=$(mktemp -d /tmp/ts-pkgconfig-XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/include" "$tmp/lib/pkgconfig" || fail "mkdir"
cp "$S/client/toolscore_client.h" "$tmp/include/" || fail "copy header"
cp "$B/libtoolscore-client.a" "$tmp/lib/" || fail "copy static library"
[ "$(readlink "$B/libtoolscore-client.so")" = $SO ] ||
	fail "$B/libtoolscore-client.so is not the symlink to $SO"
objdump -p "$B/$SO" | grep -q "SONAME *$SO" ||
	fail "the shared library's soname is not $SO"
cp "$B/$SO" "$tmp/lib/$SO" || fail "copy shared library"
ln -s $SO "$tmp/lib/libtoolscore-client.so" || fail "symlink"
sed "s|^prefix=.*|prefix=$tmp|" "$B/toolscore-client.pc" >"$tmp/lib/pkgconfig/toolscore-client.pc"
export PKG_CONFIG_PATH="$tmp/lib/pkgconfig"
pkg-config --exists toolscore-client || fail "pkg-config does not find toolscore-client"
[ "$(pkg-config --modversion toolscore-client)" = "$(sed -n 's/^#define TS_VERSION "\(.*\)".*/\1/p' "$B/gen/ts_version.h")" ] ||
	fail "pkg-config version differs from the build's (mk/version.mk)"

# A sanitizer build (make asan) has instrumented libraries: programs linking
# them need the same runtime.
SAN=""
if nm "$B/libtoolscore-client.a" 2>/dev/null | grep -q "__asan_"; then
	SAN="-fsanitize=address,undefined"
fi

cat >"$tmp/prog.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <toolscore_client.h>

int main(void)
{
    ts_client_options o;
    ts_client *c = NULL;
    ts_error err;
    struct json_object *v = json_object_new_int(1); /* json-c comes with the library */
    int rc;

    ts_client_options_init(&o);
    o.socket_path = "/nonexistent-ts-pkgconfig/toolscored.sock";
    o.autostart = false;
    ts_check_args *a = ts_check_args_new(); /* the growable check arguments */

    if (a == NULL || ts_check_args_set_name(a, "n") != 0 || ts_check_args_set_actual(a, v) != 0 ||
        ts_check_args_set_min_score(a, 0.5) != 0 || ts_check_args_set_ci(a, true) != 0) {
        printf("cannot build check arguments\n");
        return 1;
    }
    ts_check_args_free(a);
    rc = ts_client_connect(&o, &c, &err);
    json_object_put(v);
    if (rc >= 0 || c != NULL || strcmp(err.code, "unavailable") != 0) {
        printf("unexpected: rc %d code %s\n", rc, err.code);
        return 1;
    }
    printf("%s: %s\n", err.code, err.message);
    return 0;
}
PROG
# shellcheck disable=SC2046
cc $SAN -std=c11 -Wall -Werror $(pkg-config --cflags toolscore-client) "$tmp/prog.c" -o "$tmp/prog-shared" \
	$(pkg-config --libs toolscore-client) || fail "cannot build against the shared library"
out=$(LD_LIBRARY_PATH="$tmp/lib" "$tmp/prog-shared") || fail "shared build: $out"
echo "$out" | grep -q "unavailable: no daemon answers at /nonexistent-ts-pkgconfig/toolscored.sock" ||
	fail "shared build said: $out"
LD_LIBRARY_PATH="$tmp/lib" ldd "$tmp/prog-shared" | grep -q "$tmp/lib/$SO" ||
	fail "the program is not linked to the shared library"
# A static-only installation: the same layout without the shared library.
mkdir -p "$tmp/static/include" "$tmp/static/lib/pkgconfig" || fail "mkdir"
cp "$tmp/include/toolscore_client.h" "$tmp/static/include/" || fail "copy header"
cp "$tmp/lib/libtoolscore-client.a" "$tmp/static/lib/" || fail "copy static library"
sed "s|^prefix=.*|prefix=$tmp/static|" "$B/toolscore-client.pc" >"$tmp/static/lib/pkgconfig/toolscore-client.pc"
export PKG_CONFIG_PATH="$tmp/static/lib/pkgconfig"
# shellcheck disable=SC2046
cc $SAN -std=c11 -Wall -Werror $(pkg-config --cflags toolscore-client) "$tmp/prog.c" -o "$tmp/prog-static" \
	$(pkg-config --static --libs toolscore-client) || fail "cannot build against the static library"
ldd "$tmp/prog-static" | grep -q libtoolscore-client && fail "static build still needs the shared library"
out=$("$tmp/prog-static") || fail "static build: $out"
echo "$out" | grep -q "^unavailable: " || fail "static build said: $out"

# In-tree use, as the README says: PKG_CONFIG_PATH=build finds the
# uninstalled .pc, whose paths point into the source tree and the build
# directory; the program runs in place without LD_LIBRARY_PATH.
export PKG_CONFIG_PATH="$B"
cflags=$(pkg-config --cflags toolscore-client) || fail "uninstalled: pkg-config --cflags failed"
libs=$(pkg-config --libs toolscore-client) || fail "uninstalled: pkg-config --libs failed"
echo "$cflags" | grep -q -- "-I$(cd "$S" && pwd)/client" || fail "uninstalled cflags lack the source tree: $cflags"
echo "$libs" | grep -q -- "-L$B" || fail "uninstalled libs lack the build directory: $libs"
(cd "$tmp" && cc $SAN -std=c11 -Wall -Werror $cflags prog.c -o prog-intree $libs) ||
	fail "cannot build against the source tree with the uninstalled .pc"
ldd "$tmp/prog-intree" | grep -q "$B/$SO" ||
	fail "the in-tree program does not use $B/$SO"
out=$(env -u LD_LIBRARY_PATH "$tmp/prog-intree") || fail "in-tree build: $out"
echo "$out" | grep -q "^unavailable: " || fail "in-tree build said: $out"
echo "test_client_pkgconfig: shared, static and in-tree builds work"

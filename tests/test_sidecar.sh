#!/bin/sh
# The CI sidecar (contrib/sidecar/Dockerfile) held to its contract without a
# container engine: its ENTRYPOINT, USER and HEALTHCHECK are read from the
# Dockerfile and run as a container would run them. The "container" is a
# private mount namespace (unshare) whose root is a tmpfs holding the host's
# /usr and /etc read-only, the built binaries in /usr/local/bin, and the
# store and run volumes bind-mounted at /store and /run/toolscore; the
# daemon runs there as the Dockerfile's uid. Test clients run as that uid in
# namespaces of their own that see only the two volumes (and no daemon
# binary, so nothing can be auto-started beside the sidecar).
#
# Checked: the socket appears in the run volume; the healthcheck passes while
# the daemon serves and fails once it stopped; record, approve, replay and CI
# rules through the volumes; --store pinning (another root is refused); a
# client of another uid is refused; SIGTERM while clients write: every
# acknowledged snapshot is on disk whole, the daemon exits 0 and removes its
# socket; a new sidecar on the same volumes serves them all; a run open
# across a restart of the sidecar (its home kept, as a restarted
# container's layer is) gives one summary.
#
# Needs root (mount namespaces, bind mounts, another uid); where the machine
# cannot give that, the test says so in one line and fails.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

DOCKERFILE="$TS_SOURCE_DIR/contrib/sidecar/Dockerfile"

cannot() {
	echo "test_sidecar: FAIL: cannot run here: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || cannot "needs root for mount namespaces and another uid (run make check as root)"
command -v unshare >/dev/null && command -v setpriv >/dev/null && command -v chroot >/dev/null ||
	cannot "needs unshare, setpriv and chroot (util-linux, coreutils)"
unshare --mount --propagation private true 2>/dev/null ||
	cannot "this machine refuses private mount namespaces (unshare --mount)"

# --- what the Dockerfile says ------------------------------------------------------
# One instruction per line (continuations joined); JSON argv forms decoded.
dockerfile() {
	python3 - "$DOCKERFILE" "$1" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
want = sys.argv[2]
for line in text.splitlines():
    m = re.match(r"\s*([A-Z]+)\s+(.*)", line)
    if not m or m.group(1) != want.split(":")[0]:
        continue
    rest = m.group(2).strip()
    if want == "HEALTHCHECK":
        rest = rest[rest.index("CMD") + 3:].strip()
    if rest.startswith("["):
        print("\n".join(json.loads(rest)))
    else:
        print(rest)
EOF
}
ENTRYPOINT=$(dockerfile ENTRYPOINT)
HEALTHCHECK=$(dockerfile HEALTHCHECK)
USER_NAME=$(dockerfile USER)
SIDECAR_UID=$(sed -n 's/.*useradd --uid \([0-9][0-9]*\).*/\1/p' "$DOCKERFILE" | head -n 1)
same "$(dockerfile STOPSIGNAL)" "SIGTERM" "the sidecar stops on SIGTERM"
same "$(printf '%s\n' "$ENTRYPOINT" | head -n 1)" "toolscored" "the entrypoint is the daemon"
case "$ENTRYPOINT" in *"--store"*"/store"*) ;; *) fail "the entrypoint does not pin /store: $ENTRYPOINT" ;; esac
case "$(dockerfile VOLUME)" in *'/store'*'/run/toolscore'*) ;; *) fail "volumes: $(dockerfile VOLUME)" ;; esac
[ -n "$SIDECAR_UID" ] && [ "$USER_NAME" = toolscore ] || fail "user: '$USER_NAME' uid '$SIDECAR_UID'"
SOCKET_IN=/run/toolscore/toolscored.sock
case "$ENTRYPOINT" in *"$SOCKET_IN"*) ;; *) fail "the entrypoint's socket is not $SOCKET_IN" ;; esac
case "$HEALTHCHECK" in *"$SOCKET_IN"*) ;; *) fail "the healthcheck does not ask $SOCKET_IN" ;; esac

# --- the volumes and the namespaces ------------------------------------------------
HOST_STORE="$WORK/store-volume"
HOST_RUN="$WORK/run-volume"
mkdir -p "$HOST_STORE" "$HOST_RUN" "$WORK/root" "$WORK/bin-daemon" "$WORK/bin-client"
chown "$SIDECAR_UID:$SIDECAR_UID" "$HOST_STORE" "$HOST_RUN"
chmod 0700 "$HOST_RUN"
cp "$TOOLSCORED" "$TSCTL" "$WORK/bin-daemon/"
cp "$TSCTL" "$WORK/bin-client/"

# enter.sh BIN UID CMD...: in the current (private) mount namespace, build a
# root on $WORK/root and run CMD there as UID with a container's environment.
cat >"$WORK/enter.sh" <<EOF
set -e
bin=\$1; uid=\$2; shift 2
R="$WORK/root"
mount -t tmpfs -o mode=0755 tmpfs "\$R"
for d in usr etc; do
	mkdir "\$R/\$d"; mount --rbind "/\$d" "\$R/\$d"; mount -o remount,bind,ro "\$R/\$d"
done
for d in bin sbin lib lib64 lib32 libx32; do
	if [ -L "/\$d" ]; then ln -s "\$(readlink "/\$d")" "\$R/\$d"
	elif [ -d "/\$d" ]; then mkdir "\$R/\$d"; mount --rbind "/\$d" "\$R/\$d"; fi
done
mount -t tmpfs tmpfs "\$R/usr/local/bin"
cp "\$bin"/* "\$R/usr/local/bin/"
mkdir -p "\$R/dev" "\$R/proc" "\$R/tmp" "\$R/store" "\$R/run/toolscore" "\$R/home/toolscore"
chmod 1777 "\$R/tmp"
# The home directory stands for the container's own writable layer, which
# a restarted container keeps (the daemon's state directory is in it).
mkdir -p "$WORK/home-\$uid"
chown "\$uid:\$uid" "$WORK/home-\$uid"
mount --bind "$WORK/home-\$uid" "\$R/home/toolscore"
mount --rbind /dev "\$R/dev"
mount -t proc proc "\$R/proc"
mount --bind "$HOST_STORE" "\$R/store"
mount --bind "$HOST_RUN" "\$R/run/toolscore"
exec chroot "\$R" setpriv --reuid "\$uid" --regid "\$uid" --clear-groups \
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/toolscore "\$@"
EOF

# The sidecar: the ENTRYPOINT, as its uid, in its own namespace (one process:
# unshare, sh, chroot and setpriv all exec, so the pid is the daemon's).
SIDECAR_PID=""
start_sidecar() {
	# shellcheck disable=SC2046
	unshare --mount --propagation private sh "$WORK/enter.sh" "$WORK/bin-daemon" "$SIDECAR_UID" \
		$ENTRYPOINT >>"$WORK/sidecar.log" 2>&1 &
	SIDECAR_PID=$!
	i=0
	while [ ! -S "$HOST_RUN/toolscored.sock" ] && [ $i -lt 400 ]; do
		kill -0 "$SIDECAR_PID" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	[ -S "$HOST_RUN/toolscored.sock" ] || {
		fail "the sidecar did not create its socket in the run volume within 20 s"
		cat "$WORK/sidecar.log" >&2
		exit 1
	}
}
stop_sidecar() {
	[ -n "$SIDECAR_PID" ] && kill "$SIDECAR_PID" 2>/dev/null && wait "$SIDECAR_PID" 2>/dev/null
	SIDECAR_PID=""
}
# sidecar_exited: for wait_until (a zombie counts: the shell reaps it later).
sidecar_exited() {
	! kill -0 "$SIDECAR_PID" 2>/dev/null ||
		[ "$(sed 's/.*) //' "/proc/$SIDECAR_PID/stat" 2>/dev/null | cut -c1)" = Z ]
}
trap 'stop_sidecar; cleanup' EXIT

# A test client as uid $1 in a namespace of its own seeing the volumes.
client_as() {
	uid=$1
	shift
	unshare --mount --propagation private sh "$WORK/enter.sh" "$WORK/bin-client" "$uid" \
		TOOLSCORE_SOCKET="$SOCKET_IN" TOOLSCORE_DIR=/store "$@"
}
client() { client_as "$SIDECAR_UID" "$@"; }
calls() { printf '[{"tool": "%s", "args": {"n": %s}}]' "$1" "$2"; }

start_sidecar
# shellcheck disable=SC2086
t 0 client $HEALTHCHECK && out_has "pid"
t 0 client sh -c "test ! -e '$WORK' && test -d /store && test -S $SOCKET_IN"

# Record, approve, replay, CI rules, through the volumes.
t 0 client sh -c "printf '%s' '$(calls search 1)' | tsctl check booking --calls - --json" &&
	same "$(json_get outcome)" "CREATED" "first check records"
t 0 client tsctl approve booking
t 0 client sh -c "printf '%s' '$(calls search 1)' | CI=true tsctl check booking --calls - --json" &&
	same "$(json_get outcome)" "PASSED" "replay in CI"
t 1 client sh -c "printf '%s' '$(calls search 2)' | CI=true tsctl check booking --calls -" &&
	out_has "FAILED"
t 1 client sh -c "printf '%s' '$(calls x 1)' | CI=true tsctl check nothing-yet --calls - --json" &&
	same "$(json_get outcome)" "ERROR_MISSING_IN_CI" "a missing snapshot in CI"
[ -f "$HOST_STORE/booking-$(printf 'booking' | sha1sum | cut -c1-8).json" ] ||
	fail "the snapshot is not in the store volume"
[ "$(stat -c %u "$HOST_STORE"/booking-*.json)" = "$SIDECAR_UID" ] || fail "snapshot owner"

# --store pinning: another root is refused, naming the pinned one.
t 2 client sh -c "mkdir -p /tmp/other && printf '%s' '$(calls x 1)' | tsctl --dir /tmp/other check n --calls -" &&
	err_has "/store"
# A client of another uid is refused (the run volume is the daemon's, 0700).
t 3 client_as $((SIDECAR_UID + 1)) tsctl status
t 3 client_as $((SIDECAR_UID + 1)) sh -c "printf '%s' '$(calls x 1)' | tsctl check z --calls -" &&
	err_has "owned by uid $SIDECAR_UID"

# SIGTERM while clients write: every acknowledged snapshot is on disk, whole.
# The signal goes once a first write was acknowledged (the writers still
# have dozens to go), however long the machine takes to get there.
for w in 1 2 3 4 5 6; do
	(
		for i in 1 2 3 4 5 6 7 8; do
			client sh -c "printf '%s' '$(calls w "$i")' | tsctl check w$w-$i --calls - --json" \
				>"$WORK/w$w-$i.out" 2>/dev/null
		done
	) &
done
a_write_acknowledged() { grep -qs '"outcome": "CREATED"' "$WORK"/w*-*.out; }
wait_until 60 "a first write acknowledged by the sidecar" a_write_acknowledged
kill -TERM "$SIDECAR_PID"
wait_until 30 "the sidecar exiting after SIGTERM" sidecar_exited || kill -9 "$SIDECAR_PID"
wait "$SIDECAR_PID"
same "$?" "0" "the sidecar exits 0 on SIGTERM"
SIDECAR_PID=""
wait
[ ! -e "$HOST_RUN/toolscored.sock" ] || fail "the socket is left in the run volume"
acked=0
for f in "$WORK"/w*-*.out; do
	grep -q '"outcome": "CREATED"' "$f" || continue
	acked=$((acked + 1))
	name=$(basename "$f" .out)
	file="$HOST_STORE/$name-$(printf '%s' "$name" | sha1sum | cut -c1-8).json"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["name"]==sys.argv[2]' \
		"$file" "$name" 2>/dev/null || fail "acknowledged $name is not on disk whole"
done
[ "$acked" -gt 0 ] || fail "no client was answered before SIGTERM"
# shellcheck disable=SC2086
t 3 client $HEALTHCHECK

# A new sidecar on the same volumes serves everything that was acknowledged.
start_sidecar
t 0 client tsctl snapshots list --json
python3 -c 'import json,sys; names={s["name"] for s in json.loads(sys.argv[1])}; assert "booking" in names, names' \
	"$OUT" || fail "the store after a restart: $OUT"

# A run outlives a restart of the sidecar: the worker after it finds the run.
calls r 1 >"$HOST_RUN/r1.json"
calls r 2 >"$HOST_RUN/r2.json"
cat >"$HOST_RUN/worker.sh" <<'WORKER'
tsctl check r1 --calls /run/toolscore/r1.json >/dev/null
touch /run/toolscore/phase1
i=0
while [ ! -e /run/toolscore/phase2 ]; do
	i=$((i + 1))
	[ $i -gt 1200 ] && { echo "worker: no restart of the sidecar within 60 s" >&2; exit 1; }
	sleep 0.05
done
tsctl check r2 --calls /run/toolscore/r2.json >/dev/null
WORKER
chmod 0644 "$HOST_RUN/r1.json" "$HOST_RUN/r2.json" "$HOST_RUN/worker.sh"
client tsctl run --no-fail-on-findings -- sh /run/toolscore/worker.sh >"$WORK/run.out" 2>&1 &
RUNNER=$!
phase1() { [ -e "$HOST_RUN/phase1" ]; }
wait_until 60 "the run's first worker checking r1" phase1
stop_sidecar
start_sidecar
touch "$HOST_RUN/phase2"
wait "$RUNNER" || fail "the run across a sidecar restart failed: $(cat "$WORK/run.out")"
grep -q '^toolscore: 2 snapshots created (pending approval)$' "$WORK/run.out" ||
	fail "one summary across the restart: $(cat "$WORK/run.out")"
stop_sidecar

[ "$FAILURES" = 0 ] || exit 1
echo "test_sidecar: $CHECKS checks passed ($acked snapshots acknowledged before SIGTERM)"

# make dist: the Python and npm packages (docs/packaging.md), in $(DIST_DIR):
#   toolscored-VERSION-cpXY-cpXY-manylinux_2_N_x86_64.whl   for $(PYTHON)
#   toolscored-VERSION.tar.gz                              the sdist
#   toolscored-VERSION.tgz, toolscored-linux-x64-gnu-VERSION.tgz   npm
# Included at the end of the Makefile's second stage; it builds on the
# Makefile's objects and archives (LIB_OBJ, DAEMON_OBJ, LIBCLIENT, ...) and
# links them with libuv, json-c, msgpack-c and libmd statically, so that
# what ships needs glibc only. libuv comes from Debian's source package,
# compiled position-independent (Debian's libuv_a.a is not), so the daemon
# is a PIE (scripts/dist/libuv-source.sh).
#
#   make dist              all of the above
#   make dist-wheel        the wheel (PYTHON=... for another interpreter)
#   make dist-sdist        the sdist
#   make dist-npm          the two npm tarballs
# The package tests (tests/test_dist_*.sh) install what this writes.

DIST_DIR  ?= dist
DIST_WORK := $(BUILD)/dist
DIST_BIN  := $(DIST_WORK)/bin
DIST_DAEMON := $(DIST_BIN)/toolscored
DIST_TSCTL  := $(DIST_BIN)/tsctl

.PHONY: dist dist-wheel dist-sdist dist-npm dist-exe dist-guard dist-clean-old

dist: dist-wheel dist-sdist dist-npm

# What ships is never sanitized: make asan does not build it (and the
# package tests say so instead of running; docs/packaging.md).
dist-guard:
	@if [ -n "$(strip $(SANITIZE))" ]; then \
		echo "make dist builds what ships: not with SANITIZE='$(SANITIZE)' (make asan does not run the package tests)" >&2; \
		exit 1; fi

# Earlier builds' files in $(DIST_DIR) go, so that nothing stale is found there.
dist-clean-old:
	@mkdir -p $(DIST_DIR)
	@find $(DIST_DIR) -mindepth 1 -maxdepth 1 -type f -name 'toolscored*' ! -name '*-$(VERSION)[.-]*' -exec rm -f {} +

# ---- static libraries --------------------------------------------------------
# The archives of Debian's -dev packages (position-independent: they link
# into the Python extension as they are), found as the compiler finds them.
dist_archive = $(or $(filter /%,$(shell $(CC) -print-file-name=$(1))),$(error make dist: $(CC) finds no $(1); install its Debian -dev package (scripts/deps.sh)))
DIST_STATIC = $(eval DIST_STATIC := $$(call dist_archive,libjson-c.a) \
	$$(call dist_archive,libmsgpackc.a) $$(call dist_archive,libmd.a))$(DIST_STATIC)

# libuv: the pinned source (scripts/dist/libuv-source.sh), every Linux source
# of its CMakeLists.txt, compiled with -fPIC and hidden symbols.
LIBUV_VERSION := 1.44.2
LIBUV_DIR  := $(DIST_WORK)/libuv
LIBUV_TREE := $(LIBUV_DIR)/tree
LIBUV_A    := $(LIBUV_DIR)/libuv_pic.a
LIBUV_SRC  := src/fs-poll.c src/idna.c src/inet.c src/random.c src/strscpy.c src/strtok.c \
	src/threadpool.c src/timer.c src/uv-common.c src/uv-data-getter-setters.c src/version.c \
	src/unix/async.c src/unix/core.c src/unix/dl.c src/unix/fs.c src/unix/getaddrinfo.c \
	src/unix/getnameinfo.c src/unix/loop-watcher.c src/unix/loop.c src/unix/pipe.c \
	src/unix/poll.c src/unix/process.c src/unix/random-devurandom.c src/unix/signal.c \
	src/unix/stream.c src/unix/tcp.c src/unix/thread.c src/unix/tty.c src/unix/udp.c \
	src/unix/proctitle.c src/unix/linux-core.c src/unix/linux-inotify.c \
	src/unix/linux-syscalls.c src/unix/procfs-exepath.c src/unix/random-getrandom.c \
	src/unix/random-sysctl-linux.c src/unix/epoll.c
LIBUV_OBJ  := $(patsubst src/%.c,$(LIBUV_DIR)/obj/%.o,$(LIBUV_SRC))
LIBUV_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -fno-strict-aliasing -w \
	-D_GNU_SOURCE -D_POSIX_C_SOURCE=200112 -D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE \
	-I$(LIBUV_TREE)/include -I$(LIBUV_TREE)/src

$(LIBUV_TREE)/.stamp: scripts/dist/libuv-source.sh
	sh scripts/dist/libuv-source.sh $(LIBUV_DIR)

# The daemon's objects were compiled against libuv1-dev's headers: they
# must be the version built here.
$(LIBUV_DIR)/version-checked: $(LIBUV_TREE)/.stamp
	@v=$$(pkg-config --modversion libuv); [ "$$v" = "$(LIBUV_VERSION)" ] || { \
		echo "make dist: libuv1-dev is $$v, the PIC libuv built from Debian's source is $(LIBUV_VERSION): update scripts/dist/libuv-source.sh and LIBUV_* in mk/dist.mk together" >&2; exit 1; }
	@touch $@

$(LIBUV_DIR)/obj/%.o: $(LIBUV_TREE)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(LIBUV_CFLAGS) -c $(LIBUV_TREE)/src/$*.c -o $@

$(LIBUV_A): $(LIBUV_OBJ) $(LIBUV_DIR)/version-checked
	rm -f $@ && ar rcs $@ $(LIBUV_OBJ)

# ---- the two executables (the wheel's and the npm platform package's) ---------
# PIE, stripped; every library but glibc's linked in.
DIST_LDFLAGS := -pie -s -Wl,--as-needed -Wl,-z,relro,-z,now

$(DIST_DAEMON): $(DAEMON_OBJ) $(LIBPROTO) $(LIBTS) $(LIBUV_A) $(FLAGS_MK) | dist-guard
	@mkdir -p $(dir $@)
	$(CC) $(DIST_LDFLAGS) -o $@ $(DAEMON_OBJ) $(LIBPROTO) $(LIBTS) $(LIBUV_A) $(DIST_STATIC) \
		-lm -lpthread -ldl

$(DIST_TSCTL): $(TSCTL_OBJ) $(LIBCLIENT) $(FLAGS_MK) | dist-guard
	@mkdir -p $(dir $@)
	$(CC) $(DIST_LDFLAGS) -o $@ $(TSCTL_OBJ) $(LIBCLIENT) $(DIST_STATIC) -lm

dist-exe: $(DIST_DAEMON) $(DIST_TSCTL)

# ---- the Python package ------------------------------------------------------
# The extension for $(PYTHON), compiled in a directory of its own per
# interpreter (its objects see that Python's headers), exporting only
# PyInit__native (scripts/dist/native.map); the client library and the
# static archives stay inside it.
DIST_PY_SRCDIR := $(patsubst %/,%,$(dir $(firstword $(PY_C_SRC))))
DIST_PY_DIR := $(DIST_WORK)/py$(basename $(PY_EXT))
DIST_PY_OBJ := $(patsubst $(DIST_PY_SRCDIR)/%.c,$(DIST_PY_DIR)/%.o,$(PY_C_SRC))
DIST_PY_MOD := $(DIST_PY_DIR)/_native$(PY_EXT)
DIST_PY_PKG := $(patsubst %/,%,$(dir $(firstword $(PY_PKG_SRC))))

$(DIST_PY_OBJ): $(DIST_PY_DIR)/%.o: $(DIST_PY_SRCDIR)/%.c $(FLAGS_MK) | dist-guard
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -isystem $(PY_INCLUDE) $(CFLAGS) -MMD -MP -c $< -o $@

$(DIST_PY_MOD): $(DIST_PY_OBJ) $(LIBCLIENT) scripts/dist/native.map $(FLAGS_MK)
	$(CC) -shared -s -Wl,--as-needed -Wl,-z,relro,-z,now -Wl,--exclude-libs,ALL \
		-Wl,--version-script=scripts/dist/native.map -o $@ $(DIST_PY_OBJ) $(LIBCLIENT) \
		$(DIST_STATIC) -lm -lpthread -ldl

dist-wheel: $(DIST_PY_MOD) $(DIST_DAEMON) $(DIST_TSCTL) $(PY_PKG_SRC) scripts/dist/pypkg.py \
		dist-clean-old
	@$(PYTHON) scripts/dist/pypkg.py wheel $(DIST_DIR) $(VERSION) $(DIST_PY_PKG) \
		$(DIST_PY_MOD) $(DIST_DAEMON) $(DIST_TSCTL)

# The sdist: the files of the checkout the wheel is built from (git ls-files
# of the directories of the Makefile's sources: tracked, and new ones not
# ignored; an sdist makes no sdist), libuv's two archives, PKG-INFO.
DIST_SDIST_PATHS := Makefile VERSION README.md pyproject.toml mk scripts \
	$(sort $(dir $(LIB_SRC) $(PROTO_SRC) $(DAEMON_SRC) $(CLIENT_SRC) $(TSCTL_SRC) \
	$(HTML_TEMPLATE) $(PY_C_SRC) $(PY_PKG_SRC))) shims/python/mkdistinfo.sh

dist-sdist: $(LIBUV_TREE)/.stamp scripts/dist/pypkg.py dist-clean-old | dist-guard
	@git rev-parse --show-toplevel >/dev/null 2>&1 || { \
		echo "make dist-sdist: needs a git checkout (its tracked files make the sdist)" >&2; exit 1; }
	@files=$$(git ls-files --cached --others --exclude-standard -- $(DIST_SDIST_PATHS)) && \
	uv=$$(cd $(LIBUV_DIR)/src 2>/dev/null && ls libuv1_* 2>/dev/null); \
	uvfiles=""; for f in $$uv; do \
		if [ -f third_party/libuv/$$f ]; then uvfiles="$$uvfiles third_party/libuv/$$f"; \
		else uvfiles="$$uvfiles $(LIBUV_DIR)/src/$$f=third_party/libuv/$$f"; fi; done; \
	[ -n "$$uvfiles" ] || { echo "make dist-sdist: libuv's archives are missing" >&2; exit 1; }; \
	$(PYTHON) scripts/dist/pypkg.py sdist $(DIST_DIR) $(VERSION) . $$files $$uvfiles

# ---- the npm packages ---------------------------------------------------------
# toolscored (JavaScript: ESM sources, the CommonJS build, declarations) and
# the platform package with the two executables, both at $(VERSION); npm
# keeps semver build metadata in local tarballs (docs/packaging.md).
dist-npm: $(DIST_DAEMON) $(DIST_TSCTL) dist-clean-old | dist-guard
	@sh scripts/dist/npm.sh $(DIST_DIR) $(VERSION) $(DIST_WORK)/npm $(DIST_DAEMON) $(DIST_TSCTL)

# ---- make check ----------------------------------------------------------------
# The package tests (tests/test_dist_*.sh) install what make dist writes; a
# sanitizer build makes none (they say they did not run, and why).
ifeq ($(strip $(SANITIZE)),)
check: dist
endif

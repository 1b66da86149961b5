# toolscored — build, test and install.
#
#   make            build everything into $(BUILD)/
#   make run        install missing Debian packages, build, run the daemon
#   make check      install missing Debian packages, build, run every test
#   make asan       the whole test suite under ASan + UBSan (build-asan/)
#   make bench      benchmarks (not part of check)
#   make html-screenshot  the HTML report's screenshot in docs/ (browser test)
#   make format     clang-format every C file in place (.clang-format)
#   make check-format  fail when a C file is not formatted (make check runs it)
#   make install    PREFIX=/usr/local DESTDIR= (PYTHON_SITE= for the package)
#   make dist       the pip and npm packages in dist/ (mk/dist.mk, docs/packaging.md)
#
# Every goal runs in two stages. The first installs the Debian packages the
# goal needs (scripts/deps.sh) and then runs make again; only that second
# make asks pkg-config for flags, so a first `make check` on a machine
# without the libraries sees them. The flags used are recorded in
# $(BUILD)/flags.mk and every object and link depends on that file, so an
# output built with other flags never survives to a later run.
#
# Sources are found by wildcard: a new lib/<folder>/*.c, proto/*.c,
# daemon/<folder>/*.c, client/ts_client*.c, client/tsctl/*.c or
# tests/test_*.c needs no edit here. Includes name a header by its path from
# the repository root (-I.), e.g. "lib/json/ts_json.h".

SONAME_MAJOR := 1
PREFIX       ?= /usr/local
BUILD        ?= build
SANITIZE     ?=
CC           ?= cc
PKGS         := libuv json-c msgpack libmd
OPTFLAGS     ?= -O2 -g

# Goals that need the test tools (valgrind, clang, ...) besides the libraries.
TEST_GOALS := check asan bench fuzz stress format check-format html-screenshot
# Goals of make dist (mk/dist.mk): the libraries and Node, not the test tools.
DIST_GOALS := dist dist-wheel dist-sdist dist-npm dist-exe

ifeq ($(TS_DEPS_READY),)

# Stage one: packages, then the same goals in a second make.
DEPS_SET := $(if $(filter $(TEST_GOALS),$(or $(MAKECMDGOALS),all)),test,$(if \
	$(filter $(DIST_GOALS),$(MAKECMDGOALS)),dist,build))

.PHONY: stage2 clean
stage2:
	@scripts/deps.sh $(DEPS_SET)
	@$(MAKE) --no-print-directory TS_DEPS_READY=1 $(MAKECMDGOALS)

# Every goal (phony or a file under $(BUILD)/) goes through stage2 once.
%: stage2
	@:
Makefile scripts/deps.sh: ;

clean:
	rm -rf build build-asan build-fuzz build-pip dist

else

# Check (the unit-test library) only for goals that build the tests.
NEED_PKGS := $(PKGS) $(if $(filter-out $(DIST_GOALS),$(or $(MAKECMDGOALS),all)),check)
ifneq ($(shell pkg-config --exists $(NEED_PKGS) && echo yes),yes)
$(error pkg-config does not find all of: $(NEED_PKGS); run scripts/deps.sh test (as root) or install their Debian -dev packages)
endif

include mk/version.mk

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla \
	-Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -I.
# pkg-config's flags, asked for once on first use (the flags record below):
# in stage two only, after scripts/deps.sh; stage one never expands them.
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
CFLAGS   += -std=c11 $(OPTFLAGS) $(WARNINGS) -fPIC $(SANITIZE) $(PKG_CFLAGS)
LDFLAGS  += $(SANITIZE)
LIBS     = $(eval LIBS := $$(shell pkg-config --libs json-c libmd) -lm)$(LIBS)
UV_LIBS  = $(eval UV_LIBS := $$(shell pkg-config --libs libuv))$(UV_LIBS)
MP_LIBS  = $(eval MP_LIBS := $$(shell pkg-config --libs msgpack))$(MP_LIBS)
CHECK_LIBS = $(eval CHECK_LIBS := $$(shell pkg-config --libs check))$(CHECK_LIBS)

# The flags of this build, rewritten only when they change; everything
# compiled or linked depends on it.
FLAGS_MK := $(BUILD)/flags.mk
FLAGS_NOW := CC=$(CC) CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) LDFLAGS=$(LDFLAGS) \
	LIBS=$(LIBS) UV_LIBS=$(UV_LIBS) MP_LIBS=$(MP_LIBS) CHECK_LIBS=$(CHECK_LIBS)
ifneq ($(file <$(FLAGS_MK)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_MK),$(FLAGS_NOW))
endif

LIB_SRC    := $(sort $(wildcard lib/*/*.c))
PROTO_SRC  := $(sort $(wildcard proto/*.c))
DAEMON_SRC := $(sort $(wildcard daemon/*.c daemon/*/*.c))
CLIENT_SRC := $(sort $(wildcard client/ts_client*.c))
TSCTL_SRC  := $(sort $(wildcard client/tsctl/*.c))
TEST_SRC   := $(sort $(wildcard tests/test_*.c))
TESTUTIL_SRC := $(sort $(wildcard tests/util_*.c))
SHIM_SRC   := $(sort $(wildcard tests/shim_*.c))

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
# The HTML report's template (lib/html/), turned into C at build time.
HTML_TEMPLATE := lib/html/report.html lib/html/report.css lib/html/report.js
HTML_GEN   := $(BUILD)/gen/ts_html_template.c
LIB_OBJ    := $(call obj,$(LIB_SRC)) $(BUILD)/gen/ts_html_template.o
PROTO_OBJ  := $(call obj,$(PROTO_SRC))
DAEMON_OBJ := $(call obj,$(DAEMON_SRC))
CLIENT_OBJ := $(call obj,$(CLIENT_SRC))
TSCTL_OBJ  := $(call obj,$(TSCTL_SRC))
TEST_BIN   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TESTUTIL_OBJ := $(call obj,$(TESTUTIL_SRC))
SHIM_SO    := $(patsubst tests/%.c,$(BUILD)/tests/%.so,$(SHIM_SRC))

LIBTS      := $(BUILD)/libtoolscore.a
LIBPROTO   := $(BUILD)/libtoolscore-proto.a
LIBCLIENT  := $(BUILD)/libtoolscore-client.a
LIBCLIENT_SONAME := libtoolscore-client.so.$(SONAME_MAJOR)
LIBCLIENT_SO := $(BUILD)/$(LIBCLIENT_SONAME)
LIBCLIENT_LINK := $(BUILD)/libtoolscore-client.so
DAEMON     := $(BUILD)/toolscored
TSCTL      := $(BUILD)/tsctl

# The Python package (shims/python, docs/pytest.md): its C module is built
# for Debian's /usr/bin/python3 (never the python3 on PATH) with
# libtoolscore-client linked in, and laid out with the pure-Python files
# and a .dist-info (the pytest11 entry point) in $(BUILD)/python, which
# works as a site directory: PYTHONPATH=$(BUILD)/python loads the plugin.
PYTHON     := /usr/bin/python3
PY_CONF    := $(shell $(PYTHON) -c 'import sys, sysconfig; print(sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX"), "%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifneq ($(words $(PY_CONF)),3)
$(error $(PYTHON) is missing or cannot tell its include directory; install python3-dev)
endif
PY_INCLUDE := $(word 1,$(PY_CONF))
PY_EXT     := $(word 2,$(PY_CONF))
PY_VERSION := $(word 3,$(PY_CONF))
PY_C_SRC   := $(sort $(wildcard shims/python/src/*.c))
PY_C_OBJ   := $(call obj,$(PY_C_SRC))
PY_PKG_SRC := $(sort $(wildcard shims/python/toolscored/*.py shims/python/toolscored/*.pyi)) \
	shims/python/toolscored/py.typed
PY_OUT     := $(BUILD)/python
PY_MOD     := $(PY_OUT)/toolscored/_native$(PY_EXT)
PY_FILES   := $(patsubst shims/python/%,$(PY_OUT)/%,$(PY_PKG_SRC))
PY_DIST    := toolscored-$(VERSION).dist-info
PY_DISTINFO := $(PY_OUT)/$(PY_DIST)/entry_points.txt
# Where make install puts the package: a directory /usr/bin/python3 reads.
PYTHON_SITE ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VERSION)/dist-packages)

.PHONY: all deps deps-test run check asan bench fuzz stress install clean format check-format \
	html-screenshot

all: $(LIBTS) $(LIBPROTO) $(LIBCLIENT) $(LIBCLIENT_SO) $(LIBCLIENT_LINK) $(DAEMON) $(TSCTL) \
	$(BUILD)/toolscore-client.pc $(BUILD)/toolscore-client-uninstalled.pc $(TEST_BIN) $(SHIM_SO) \
	python

# Stage one installed the packages already; these stay as names to type.
deps deps-test:
	@:

$(BUILD)/%.o: %.c $(FLAGS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(HTML_GEN): scripts/embed.sh $(HTML_TEMPLATE)
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $@ ts_html_page=lib/html/report.html \
		ts_html_style=lib/html/report.css ts_html_script=lib/html/report.js

$(BUILD)/gen/ts_html_template.o: $(HTML_GEN) $(FLAGS_MK)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIBTS): $(LIB_OBJ) $(FLAGS_MK)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(LIBPROTO): $(PROTO_OBJ) $(FLAGS_MK)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(filter %.o,$^)

# The client library carries the lib/ and proto/ code it needs, so a test
# worker or a language shim links one archive (plus json-c, msgpack, libmd).
$(LIBCLIENT): $(CLIENT_OBJ) $(PROTO_OBJ) $(LIB_OBJ) $(FLAGS_MK)
	rm -f $@ && ar rcs $@ $(filter %.o,$^)

# The shared library is built under its soname; the unversioned name beside
# it is the link-time symlink, as an installed library has.
$(LIBCLIENT_SO): $(CLIENT_OBJ) $(PROTO_OBJ) $(LIB_OBJ) $(FLAGS_MK)
	$(CC) -shared -Wl,-soname,$(LIBCLIENT_SONAME) -Wl,--no-undefined $(LDFLAGS) -o $@ \
		$(filter %.o,$^) $(MP_LIBS) $(LIBS)

$(LIBCLIENT_LINK): $(LIBCLIENT_SO)
	ln -sf $(LIBCLIENT_SONAME) $@

$(BUILD)/toolscore-client.pc: client/toolscore-client.pc.in $(FLAGS_MK)
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# For programs built against the source tree (PKG_CONFIG_PATH=$(BUILD)):
# pkg-config prefers NAME-uninstalled.pc, which points at client/ and
# $(BUILD)/ (with an rpath, so such a program runs in place).
$(BUILD)/toolscore-client-uninstalled.pc: client/toolscore-client-uninstalled.pc.in $(FLAGS_MK)
	@mkdir -p $(dir $@)
	sed -e 's|@SRCDIR@|$(CURDIR)|g' -e 's|@BUILDDIR@|$(abspath $(BUILD))|g' \
		-e 's|@VERSION@|$(VERSION)|g' $< > $@

$(DAEMON): $(DAEMON_OBJ) $(LIBPROTO) $(LIBTS) $(FLAGS_MK)
	$(CC) $(LDFLAGS) -o $@ $(DAEMON_OBJ) $(LIBPROTO) $(LIBTS) $(UV_LIBS) $(MP_LIBS) $(LIBS)

$(TSCTL): $(TSCTL_OBJ) $(LIBCLIENT) $(FLAGS_MK)
	$(CC) $(LDFLAGS) -o $@ $(TSCTL_OBJ) $(LIBCLIENT) $(MP_LIBS) $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TESTUTIL_OBJ) $(LIBCLIENT) $(FLAGS_MK)
	$(CC) $(LDFLAGS) -o $@ $< $(TESTUTIL_OBJ) $(LIBCLIENT) $(CHECK_LIBS) $(MP_LIBS) $(LIBS)

# The Python package. Its objects see Python's headers; the module exports
# only PyInit__native (the client library's symbols stay inside it).
$(PY_C_OBJ): CPPFLAGS += -isystem $(PY_INCLUDE)

$(PY_MOD): $(PY_C_OBJ) $(LIBCLIENT) $(FLAGS_MK)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,--exclude-libs,ALL -o $@ $(PY_C_OBJ) $(LIBCLIENT) \
		$(MP_LIBS) $(LIBS) -lpthread

$(PY_OUT)/toolscored/%: shims/python/toolscored/%
	@mkdir -p $(dir $@)
	sed 's|@VERSION@|$(VERSION)|g' $< > $@

$(PY_DISTINFO): shims/python/mkdistinfo.sh $(PY_MOD) $(PY_FILES) $(FLAGS_MK)
	sh shims/python/mkdistinfo.sh $(PY_OUT) $(VERSION)

.PHONY: python
python: $(PY_MOD) $(PY_FILES) $(PY_DISTINFO)

# LD_PRELOAD fault-injection shims for tests (tests/shim_*.c), one shared
# object each, built without the sanitizer flags (a test preloads the
# sanitizer runtime first when the daemon needs it).
$(BUILD)/tests/%.so: tests/%.c $(FLAGS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 $(OPTFLAGS) $(WARNINGS) -fPIC -shared -o $@ $< -ldl

# Benchmark programs (make bench, make stress; never part of check): every
# tests/bench/*.c except the bench_*.c helpers is one program.
BENCH_HELPER_SRC := $(sort $(wildcard tests/bench/bench_*.c))
BENCH_SRC  := $(filter-out $(BENCH_HELPER_SRC),$(sort $(wildcard tests/bench/*.c)))
BENCH_BIN  := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
BENCH_HELPER_OBJ := $(call obj,$(BENCH_HELPER_SRC))

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(BENCH_HELPER_OBJ) $(LIBCLIENT) $(FLAGS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_HELPER_OBJ) $(LIBCLIENT) $(MP_LIBS) $(LIBS) -lpthread

# Every test needs the binaries too (integration tests start them); the
# load and exhaustion tests drive the daemon with the bench load generator,
# the bounds tests with the attack tool.
check: check-format all $(BUILD)/bench/loadgen $(BUILD)/bench/attack
	@BUILD=$(BUILD) tests/run.sh

# The HTML report's screenshot in docs/ci.md: the browser test's first
# screen, produced again on demand (never by check).
html-screenshot: all $(BUILD)/bench/loadgen
	@BUILD=$(BUILD) TS_TESTS=test_html_page.sh tests/run.sh
	cp $(BUILD)/html-screenshots/report-1280-view.png docs/html-report.png

run: $(DAEMON) $(TSCTL)
	$(DAEMON) --foreground $(TOOLSCORED_ARGS)

asan:
	$(MAKE) BUILD=build-asan OPTFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=all' check

bench: all $(BENCH_BIN)
	@BUILD=$(BUILD) tests/bench/run.sh

fuzz:
	@tests/fuzz/run.sh

# Long hardening runs: tests/stress_*.sh (seconds to minutes each).
stress: all $(BENCH_BIN)
	@BUILD=$(BUILD) TS_STRESS=1 tests/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/lib/systemd/user \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(DAEMON) $(TSCTL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBCLIENT) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBCLIENT_SO) $(DESTDIR)$(PREFIX)/lib/$(LIBCLIENT_SONAME)
	ln -sf $(LIBCLIENT_SONAME) $(DESTDIR)$(PREFIX)/lib/libtoolscore-client.so
	install -m 644 $(BUILD)/toolscore-client.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 client/toolscore_client.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 client/tsctl/tsctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tsctl
	install -m 644 docs/tsctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/toolscored.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 systemd/toolscored.socket $(DESTDIR)$(PREFIX)/lib/systemd/user/
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|' systemd/toolscored.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/user/toolscored.service
	rm -rf $(DESTDIR)$(PYTHON_SITE)/toolscored $(DESTDIR)$(PYTHON_SITE)/toolscored-*.dist-info
	install -d $(DESTDIR)$(PYTHON_SITE)/toolscored
	install -m 644 $(PY_FILES) $(DESTDIR)$(PYTHON_SITE)/toolscored/
	install -m 755 $(PY_MOD) $(DESTDIR)$(PYTHON_SITE)/toolscored/
	sh shims/python/mkdistinfo.sh $(DESTDIR)$(PYTHON_SITE) $(VERSION)

# Every C file of the project, formatted with the checked-in .clang-format.
FORMAT_SRC := $(sort $(wildcard lib/*/*.[ch] proto/*.[ch] daemon/*.[ch] daemon/*/*.[ch] \
	client/*.[ch] client/*/*.[ch] tests/*.[ch] tests/*/*.[ch]) $(shell find shims -name '*.[ch]' 2>/dev/null))

format:
	clang-format -i $(FORMAT_SRC)

check-format:
	@clang-format --dry-run -Werror $(FORMAT_SRC) && \
		echo "check-format: $(words $(FORMAT_SRC)) C files formatted as .clang-format says"

clean:
	rm -rf build build-asan build-fuzz build-pip dist

# Keep test and bench objects (intermediates of pattern rules) so a second
# make does not rebuild them.
.SECONDARY:

$(eval $(TS_VERSION_DEPS))
include mk/dist.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

endif

# The version of this build (scripts/dist/version.sh: VERSION, plus the
# commit for a build that is not a release), as TS_VERSION in
# $(BUILD)/gen/ts_version.h. The header is rewritten only when the version
# changes, and only the files that include it are compiled again (their .d
# files say so).
VERSION := $(shell sh scripts/dist/version.sh)
ifeq ($(VERSION),)
$(error scripts/dist/version.sh did not tell this build's version)
endif
VERSION_H := $(BUILD)/gen/ts_version.h
VERSION_H_NOW := \#define TS_VERSION "$(VERSION)" /* written by make: mk/version.mk */
ifneq ($(file <$(VERSION_H)),$(VERSION_H_NOW))
$(shell mkdir -p $(BUILD)/gen)
$(file >$(VERSION_H),$(VERSION_H_NOW))
endif
CPPFLAGS += -I$(BUILD)/gen

# The version-bearing outputs that are no C objects (the objects follow
# ts_version.h through their .d files): their rules are in the Makefile, so
# this is included after them (TS_VERSION_DEPS below, from the Makefile's end).
define TS_VERSION_DEPS
$(BUILD)/toolscore-client.pc $(BUILD)/toolscore-client-uninstalled.pc $(PY_FILES): $(VERSION_H)
endef
